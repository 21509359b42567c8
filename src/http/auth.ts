import { Elysia } from 'elysia'
import type { Caller } from '../core/projects/projects.service.ts'
import { AppError } from '../lib/errors.ts'
import type { HttpDeps } from './deps.ts'
import { rateLimitHeaders } from './rate-limit.ts'

/** The token of an `Authorization: Bearer <token>` header. */
export const bearer = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1]

/**
 * Authenticates the request's key and counts it against its project's rate limit. Routes of a
 * file that uses this see `caller`; `publicKey: true` admits public keys too.
 */
export const requireKey = (deps: HttpDeps, options: { publicKey?: boolean } = {}) =>
  new Elysia().derive({ as: 'scoped' }, async ({ headers, set }): Promise<{ caller: Caller }> => {
    const caller = await deps.authenticator.authenticate(bearer(headers.authorization))
    if (caller.keyType === 'public' && !options.publicKey) {
      throw new AppError(403, 'FORBIDDEN', 'Public keys work only with POST /v1/track', {
        suggestion: 'Use a secret key (sk_...) for this endpoint, and keep it on your server.',
      })
    }
    const state = deps.rateLimiter.take(caller.project.id, caller.project.rateLimitPerMinute)
    Object.assign(set.headers, rateLimitHeaders(state))
    return { caller }
  })
