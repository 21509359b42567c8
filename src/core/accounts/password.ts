import { invalid } from '../../lib/errors.ts'
import { createLimiter } from '../../lib/limiter.ts'

/** Long enough to resist guessing through the throttle; short enough that hashing it costs nothing unusual. */
const MIN_LENGTH = 10
const MAX_BYTES = 256

/** The password, or a 422 naming `field`. Nothing else is required of it: length does the work. */
export function requirePassword(password: string, field = 'password'): string {
  if (password.length < MIN_LENGTH) throw invalid(field, `must be at least ${MIN_LENGTH} characters`)
  if (Buffer.byteLength(password) > MAX_BYTES) throw invalid(field, `must be at most ${MAX_BYTES} bytes`)
  return password
}

/**
 * Password hashes computed at once in this process: each holds 64 MiB while it runs, so sign-ins
 * at many accounts from many addresses (which the throttle counts apart) queue here instead of
 * taking the server's memory; at most 4 x 64 MiB.
 */
export const MAX_HASHING = 4
const hashing = createLimiter(MAX_HASHING)

/** argon2id (Bun.password's defaults: 64 MiB, 2 passes), as a PHC string with its salt. */
export const hashPassword = (password: string): Promise<string> => hashing(() => Bun.password.hash(password, { algorithm: 'argon2id' }))

/**
 * Whether `password` matches `hash`. Without a hash (an unknown email, an account whose password
 * is not set yet) a stand-in hash is checked, so the answer takes as long either way.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const against = hash ?? (await standIn())
  const matches = await hashing(() => Bun.password.verify(password, against))
  return hash !== null && matches
}

let standInHash: Promise<string> | undefined
const standIn = () => (standInHash ??= hashPassword(crypto.randomUUID()))
