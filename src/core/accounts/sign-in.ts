import type { Write } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
import type { AuthThrottle } from '../../lib/auth-throttle.ts'
import type { Clock } from '../../lib/clock.ts'
import { AppError } from '../../lib/errors.ts'
import { isFailedLogin, tooManyWaiting } from '../projects/authenticator.ts'
import { findAccountByKey } from './accounts.repository.ts'
import { toAccount } from './accounts.service.ts'
import { verifyPassword } from './password.ts'
import { startSession, type SessionMeta, type SessionPolicy } from './sessions.service.ts'
import { checkSignInCode, totpRequired } from './totp.service.ts'

export interface SignInDeps {
  db: Db
  write: Write
  clock: Clock
  /** The one login throttle, the API keys' (authenticator.throttle). */
  throttle: AuthThrottle
  /** The server secret: it seals second factors' secrets. */
  secret: string
  sessions: SessionPolicy
}

export interface SignInRequest {
  email: string
  password: string
  /** The authenticator app's code, for an account with a second factor. */
  code?: string
}

const wrongCredentials = () =>
  new AppError(401, 'UNAUTHORIZED', 'Wrong email or password', { suggestion: 'Check both; failed sign-ins slow the next ones for a while.' })

/**
 * Signs a person in: a new session for the account whose email and password these are. Each
 * attempt counts from its start and waits as the throttle says for its client address and for the
 * account it names (known or not: an unknown email is slowed and answered like a known one), and a
 * failure counts under both: a burst of any size reaches the password check at most
 * FREE_FAILURES + MAX_WAITING times (src/lib/auth-throttle.ts). The password is checked against a stand-in hash when the email is unknown, so the answer
 * takes as long either way. A disabled account is refused once its password is shown right; an
 * account with a second factor then needs its code (401 TOTP_REQUIRED without one; a wrong code
 * counts as a failure).
 */
export async function signIn(deps: SignInDeps, input: SignInRequest, meta: SessionMeta) {
  const checked = checkAddress(input.email)
  const emailKey = checked.ok ? checked.value.key : input.email.toLowerCase()
  const refuse = (ms: number) => tooManyWaiting(ms, 'your address or to this account', 'password')
  return deps.throttle.run(throttleKeys(meta.address, emailKey), () => checkSignIn(deps, checked.ok ? emailKey : undefined, input, meta), isFailedLogin, refuse)
}

/** What a login with a password is counted under: its client address (when it has one) and the account it names. */
export const throttleKeys = (address: string | undefined, emailKey: string) => [...(address === undefined ? [] : [address]), `account ${emailKey}`]

async function checkSignIn(deps: SignInDeps, emailKey: string | undefined, input: SignInRequest, meta: SessionMeta) {
  const row = emailKey === undefined ? undefined : await findAccountByKey(deps.db, emailKey)
  const matches = await verifyPassword(input.password, row?.password_hash ?? null)
  if (!row || !matches) throw wrongCredentials()
  if (row.disabled === 1) throw new AppError(403, 'ACCOUNT_DISABLED', 'This account is disabled', { suggestion: 'Ask the server\'s operator: mailstead user list.' })
  const now = deps.clock.now()
  // The code is used up in the transaction that makes the session: it cannot open two.
  const outcome = await deps.write(async (trx) => {
    const factor = await checkSignInCode(trx, deps.secret, row.id, input.code, now)
    return { factor, session: factor === 'ok' ? await startSession(trx, row.id, meta, now, deps.sessions) : undefined }
  })
  if (outcome.factor === 'missing') throw totpRequired()
  if (!outcome.session) throw new AppError(401, 'UNAUTHORIZED', 'Wrong code', { suggestion: 'Send the current code of your authenticator app; failed sign-ins slow the next ones.' })
  return { account: toAccount(row), session: outcome.session }
}
