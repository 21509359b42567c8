import { AppError } from '../lib/errors.ts'
import { clientKey } from '../lib/ip.ts'
import { clientAddress, type ServerLike } from './client-address.ts'
import type { HttpDeps } from './deps.ts'

/**
 * Runs the cheap check of a route that anyone may call (a link's signed token: setup, password,
 * invitation) before anything costly, a password's hash above all (argon2id, 64 MiB). A refusal
 * spends the client address's `unauthenticated` budget, like a wrong key: a flood of made-up
 * tokens is turned away with 429 once it is spent, and never reaches the hash.
 */
export async function checkedFirst<T>(deps: HttpDeps, parts: { request: Request; server: ServerLike }, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check()
  } catch (error) {
    if (error instanceof AppError && error.status < 500) {
      await deps.rateLimiter.take('unauthenticated', clientKey(clientAddress(parts.request, parts.server, deps.trustedProxies)))
    }
    throw error
  }
}
