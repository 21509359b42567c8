/*
 * Which links click tracking leaves alone because they carry a secret. A tracked link's URL goes
 * into the click token and, once followed, into the CLICKED event, its webhooks and the console:
 * a password-reset or sign-in link must never end up there. The rule errs towards not tracking.
 */

/**
 * Words that name a secret in a query or fragment parameter (`?token=`, `&reset_key=`,
 * `#access_token=`, `?otpCode=`), compared word by word so `design` or `campaign` are not `sig`.
 */
const SECRET_PARAMETER_WORDS = new Set([
  'token', 'code', 'key', 'apikey', 'secret', 'password', 'passwd', 'pwd', 'pass', 'reset', 'signature', 'sig', 'hmac',
  'otp', 'totp', 'auth', 'nonce', 'jwt', 'session', 'sid', 'ticket', 'magic', 'credential', 'credentials', 'hash',
])

/** Words of a path that mark a link holding a secret in its path (`/reset-password/9f8e...`, `/magic-link/...`). */
const SECRET_PATH_WORDS = new Set(['reset', 'password', 'passwordless', 'otp', 'magic', 'token', 'verify', 'verification', 'confirm', 'invite', 'invites', 'invitation', 'invitations', 'activate', 'signin', 'login'])

/** The words of a name: split at `_`, `-`, `.`, and lower-to-upper case changes (`resetToken`). */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)

const namesSecret = (name: string, words: Set<string>) => wordsOf(name).some((word) => words.has(word))

/** Parameter names of a query or fragment (`a=1&b=2`); a fragment like `#top` has none. */
const parameterNames = (part: string) => [...new URLSearchParams(part.replace(/^[?#]/, '')).keys()]

/**
 * Whether a link carries a secret: a query or fragment parameter named like one (token, code, key,
 * secret, password, reset, signature, otp, auth, session and the like), or a path with a word such
 * as reset, password, magic, verify, confirm, invite or login in it.
 */
export function carriesSecret(url: string): boolean {
  if (!URL.canParse(url)) return false
  const parsed = new URL(url)
  const parameters = [...parameterNames(parsed.search), ...(parsed.hash.includes('=') ? parameterNames(parsed.hash) : [])]
  if (parameters.some((name) => namesSecret(name, SECRET_PARAMETER_WORDS))) return true
  return parsed.pathname.split('/').some((segment) => namesSecret(segment, SECRET_PATH_WORDS))
}
