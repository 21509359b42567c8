import { check, signedHeaderLists, type Check } from './receiver-checks.ts'
import type { Field } from './raw-message.ts'

/** Signed, and listed once more than they occur, so that no copy can be added after signing. */
const OVER_SIGNED = ['from', 'to', 'subject', 'date']
/** Signed when the message has them: a receiver must see them as sent. */
const SIGNED_WHEN_PRESENT = ['content-transfer-encoding', 'in-reply-to', 'references']

const count = (names: string[], name: string) => names.filter((n) => n === name).length

/**
 * What the first DKIM signature covers (RFC 6376 5.4): From, To, Subject and Date over-signed
 * (RFC 6376 8.15: a header listed more often than it occurs makes an added copy break the
 * signature), and Content-Transfer-Encoding, In-Reply-To and References whenever present.
 */
export function dkimCoverageCheck(fields: Field[]): Check {
  const [id, name] = ['dkim-headers', 'DKIM signed headers']
  const signed = signedHeaderLists(fields)[0]
  if (!signed) return check(id, name, 'fail', 'The message carries no DKIM signature')
  if (!signed.includes('from')) return check(id, name, 'fail', 'From is not signed: the signature does not count (RFC 6376 5.4)')
  const present = fields.map((f) => f.name)
  const notOverSigned = OVER_SIGNED.filter((n) => count(signed, n) <= count(present, n))
  const unsigned = SIGNED_WHEN_PRESENT.filter((n) => present.includes(n) && !signed.includes(n))
  const problems = [
    ...(notOverSigned.length > 0 ? [`not over-signed: ${notOverSigned.join(', ')}`] : []),
    ...(unsigned.length > 0 ? [`present but not signed: ${unsigned.join(', ')}`] : []),
  ]
  const said = problems.join('; ')
  if (problems.length > 0) return check(id, name, 'warn', `${said[0]!.toUpperCase()}${said.slice(1)} (h=${signed.join(':')})`)
  return check(id, name, 'pass', `h=${signed.join(':')}`)
}
