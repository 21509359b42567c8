import { invalid } from '../../lib/errors.ts'
import type { Mailbox } from './message.ts'

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
