import { t } from 'elysia'
import type { Mailbox } from '../../core/emails/message.ts'
import { invalid } from '../../lib/errors.ts'
import { strictObject } from '../schemas.ts'

export const AttachmentSchema = strictObject({
  filename: t.String({ description: 'File name shown to the recipient' }),
  content: t.String({ description: 'The file, base64' }),
  contentType: t.Optional(t.String({ description: 'MIME type, e.g. application/pdf' })),
})

export const HeadersSchema = t.Record(t.String(), t.String(), { description: 'Extra headers; names and values on one line' })

export const MailboxObject = strictObject({ name: t.Optional(t.String()), email: t.String() })

// `Jane Doe <jane@example.com>` or `"Doe, Jane" <jane@example.com>`: a name, then an address in angle brackets.
const NAME_ADDR = /^\s*(?:"((?:[^"\\]|\\.)*)"|([^"<>]*?))\s*<([^<>\s]+)>\s*$/

/**
 * `jane@example.com`, `Jane <jane@example.com>` or {name, email}, as one mailbox. Strict on
 * purpose: a string that is neither form is refused, never reinterpreted (a header parser would
 * read `jane doe@x` as a name and an address).
 */
export function mailboxOf(value: string | { name?: string; email: string }, field: string): Mailbox {
  if (typeof value !== 'string') return { address: value.email, ...(value.name && { name: value.name }) }
  if (/[\u0000-\u001f\u007f]/.test(value)) throw invalid(field, 'must not contain line breaks or control characters')
  const named = NAME_ADDR.exec(value)
  if (!named) return { address: value }
  const name = (named[1]?.replace(/\\(.)/g, '$1') ?? named[2] ?? '').trim()
  return { address: named[3]!, ...(name && { name }) }
}

export const listOf = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value])

/** An ISO 8601 time as epoch ms; a 422 naming the field when it is not one. */
export function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) throw invalid(field, 'must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z')
  return ms
}

export const idempotencyKeyOf = (headers: Record<string, string | undefined>) => headers['idempotency-key']
