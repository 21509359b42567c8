import { addressKey } from '../core/emails/feedback.ts'
import { checkAddress } from '../lib/address.ts'

/**
 * Local parts that feedback loops write in place of the recipient they hide (AOL's "redacted",
 * Microsoft's run of x's, asterisks, "removed"...): such a name says only that someone was hidden.
 */
const REDACTION = /^(\[?redacted\]?|x{3,}|\*{3,}|#{3,}|removed|hidden|anonymi[sz]ed|undisclosed-recipients?)$/i

/**
 * Whether a name a report gives hides the recipient rather than naming one: empty, not an address
 * at all ("xxxxx", "redacted@", "[email removed]"), or an address whose local part is a
 * redaction mark (redacted@isp.example, xxxxxxxx@hotmail.com).
 */
export function isRedacted(name: string): boolean {
  const checked = checkAddress(name.trim())
  return !checked.ok || REDACTION.test(checked.value.local.replace(/^"|"$/g, ''))
}

/** The names that are real addresses: a report naming only hidden ones names nobody. */
export const namedAddresses = (names: readonly string[]) => names.filter((name) => !isRedacted(name))

/** Whether the names include this recipient (compared as addresses are: the local part and domain case-insensitively). */
export const namesRecipient = (names: readonly string[], recipient: string) => {
  const key = addressKey(recipient)
  return names.some((name) => addressKey(name) === key)
}
