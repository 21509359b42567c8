import { t } from 'elysia'
import addressparser from 'nodemailer/lib/addressparser'
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

/** `jane@example.com`, `Jane <jane@example.com>` or {name, email}, as one mailbox. */
export function mailboxOf(value: string | { name?: string; email: string }, field: string): Mailbox {
  if (typeof value !== 'string') return { address: value.email, ...(value.name && { name: value.name }) }
  const parsed = addressparser(value, { flatten: true })
  if (parsed.length !== 1 || !parsed[0]!.address) throw invalid(field, 'must be one email address')
  return { address: parsed[0]!.address, ...(parsed[0]!.name && { name: parsed[0]!.name }) }
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
