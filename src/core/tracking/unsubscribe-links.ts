import { isUuid } from '../../lib/ids.ts'
import { signToken, verifyToken } from '../../lib/signed.ts'

const PURPOSE = 'unsubscribe'

export interface UnsubscribeLinks {
  /** The page that unsubscribes (and takes RFC 8058's one-click POST). */
  url: string
  /** Mail to this server's MX that unsubscribes, for clients that only write mail. */
  mailto: string
  /** List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058). */
  headers: Record<string, string>
}

/**
 * The ways to unsubscribe from one email. `mailDomain` is the sending domain's return-path host,
 * whose MX is this server; `baseUrl` is the public URL, without a trailing slash.
 */
export function unsubscribeLinks(options: { secret: string; baseUrl: string; emailId: string; mailDomain: string }): UnsubscribeLinks {
  const token = unsubscribeToken(options.secret, options.emailId)
  const url = `${options.baseUrl}/unsubscribe/${token}`
  const mailto = `mailto:unsubscribe+${token}@${options.mailDomain}?subject=unsubscribe`
  return { url, mailto, headers: { 'List-Unsubscribe': `<${url}>, <${mailto}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }
}

/**
 * The email id, signed. A UUID goes without its dashes: `unsubscribe+<token>` must fit the 64
 * octets RFC 5321 allows a local part, and 36 + 17 characters after the prefix would not.
 */
export const unsubscribeToken = (secret: string, emailId: string) =>
  signToken(secret, PURPOSE, isUuid(emailId) ? emailId.replaceAll('-', '') : emailId)

/** The email an unsubscribe token names, or undefined when it is not one of ours. */
export function emailOfUnsubscribeToken(secret: string, token: string): string | undefined {
  // The mac is lower-case base32 and a UUID lower-case hex, so a token whose case was folded on
  // the way (a mail address) is still good.
  const payload = verifyToken(secret, PURPOSE, token.toLowerCase())
  if (payload === undefined) return undefined
  const uuid = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(payload)
  return uuid ? uuid.slice(1).join('-') : payload
}

/** The email an `unsubscribe+<token>@...` address names, or undefined when it is not one of ours. */
export function emailOfUnsubscribeAddress(secret: string, address: string): string | undefined {
  const token = /^unsubscribe\+([a-z0-9-]+)@[^@]+$/i.exec(address)?.[1]
  return token === undefined ? undefined : emailOfUnsubscribeToken(secret, token)
}
