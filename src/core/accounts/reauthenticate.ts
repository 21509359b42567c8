import type { Db } from '../../db/schema.ts'
import type { AuthThrottle } from '../../lib/auth-throttle.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { tooManyWaiting } from '../projects/authenticator.ts'
import { findAccount } from './accounts.repository.ts'
import { requireEmail } from './accounts.service.ts'
import { verifyPassword } from './password.ts'
import { throttleKeys } from './sign-in.ts'

/** The fields whose wrong value is a guess at a secret: the throttle counts them like failed sign-ins. */
const GUESSED_FIELDS = new Set(['currentPassword', 'code'])

/** A wrong current password or second-factor code (a 422 naming the field, so the console keeps its session). */
export const isWrongSecret = (error: unknown) =>
  error instanceof AppError && error.status === 422 && GUESSED_FIELDS.has(error.details.errors?.[0]?.field ?? '')

/**
 * Runs `then` (a change to how the account signs in: its password, its second factor) only for
 * someone who shows the account's current password: a session left open on a shared computer, or
 * a stolen cookie, is not enough. Each attempt counts from its start with the sign-in throttle,
 * under the client address and the account, and a wrong password, or a wrong code inside `then`,
 * counts as a failed sign-in: guesses here are slowed and capped as they are at sign-in.
 */
export function withCurrentPassword<T>(
  deps: { db: Db; throttle: AuthThrottle },
  account: { id: string; email: string },
  currentPassword: string,
  address: string | undefined,
  then: () => Promise<T>,
): Promise<T> {
  const keys = throttleKeys(address, requireEmail(account.email).key)
  const refuse = (ms: number) => tooManyWaiting(ms, 'your address or to this account', 'password')
  return deps.throttle.run(keys, async () => {
    const row = await findAccount(deps.db, account.id)
    if (!(await verifyPassword(currentPassword, row?.password_hash ?? null))) throw invalid('currentPassword', 'is not the password of this account')
    return then()
  }, isWrongSecret, refuse)
}
