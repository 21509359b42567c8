import { Elysia } from 'elysia'
import type { Caller } from '../core/projects/projects.service.ts'
import { AppError } from '../lib/errors.ts'
import { clientKey } from '../lib/ip.ts'
import { clientAddress, type ServerLike } from './client-address.ts'
import type { HttpDeps } from './deps.ts'
import { rateLimitHeaders, type RateLimitState } from './rate-limit.ts'

/** The token of an `Authorization: Bearer <token>` header. */
export const bearer = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1]

/**
 * Authenticates the request's key (authenticator.logIn: malformed keys refused before any lookup,
 * others slowed after failed logins from the address) and counts it against its budget. Routes of
 * a file that uses this see `caller`; `publicKey: true` admits public keys too.
 *
 * Every well-formed key is checked, even from an address that has spent its budget of failed
 * ones: a right key is never locked out by others' mistakes at the same address, only slowed with
 * them. Failures count against that budget; once it is spent they get 429 instead of 401, which
 * tells a client that retries at once to stop.
 */
export const requireKey = (deps: HttpDeps, options: { publicKey?: boolean } = {}) =>
  new Elysia().derive({ as: 'scoped' }, async ({ headers, set, request, server }): Promise<{ caller: Caller }> => {
    const client = clientAddress(request, server as ServerLike, deps.trustedProxies)
    const address = clientKey(client)
    const caller = await deps.authenticator.logIn(bearer(headers.authorization), client && address).catch(async (error: unknown) => {
      if (error instanceof AppError && error.status === 401) await deps.rateLimiter.take('unauthenticated', address)
      throw error
    })
    if (caller.keyType === 'public' && !options.publicKey) {
      throw new AppError(403, 'FORBIDDEN', 'Public keys work only with POST /v1/track', {
        suggestion: 'Use a secret key (sk_...) for this endpoint, and keep it on your server.',
      })
    }
    Object.assign(set.headers, rateLimitHeaders(await spend(deps, caller, address)))
    return { caller }
  })

/** Public keys spend their project's public-key budget and their address's share of it; secret keys their project's. */
async function spend(deps: HttpDeps, caller: Caller, address: string): Promise<RateLimitState> {
  const project = caller.project
  if (caller.keyType === 'secret') return deps.rateLimiter.take('secret-key', String(project.id), project.rateLimitPerMinute)
  const own = await deps.rateLimiter.take('public-key-address', `${project.id} ${address}`)
  const shared = await deps.rateLimiter.take('public-key', String(project.id))
  // The headers tell of the budget that will run out first.
  return own.remaining <= shared.remaining ? own : shared
}
