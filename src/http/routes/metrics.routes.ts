import { Elysia } from 'elysia'
import { safeEqual, sha256Hex } from '../../lib/crypto.ts'
import { AppError } from '../../lib/errors.ts'
import { EXPOSITION_CONTENT_TYPE } from '../../lib/metrics.ts'
import { bearer } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'

/**
 * GET /metrics in the Prometheus text format, only when metricsToken is set: otherwise there is
 * no such route (404). A request without the token costs one hash and a constant-time compare,
 * of digests so that not even the token's length shows; it reads nothing and waits for nothing.
 * Kept out of the OpenAPI document: it is for the operator's Prometheus, not for API clients.
 */
export const metricsRoutes = (deps: HttpDeps) => {
  const token = deps.config.metricsToken
  if (!token) return new Elysia()
  const expected = sha256Hex(token)
  return new Elysia().get(
    '/metrics',
    async ({ headers, set }) => {
      const given = bearer(headers.authorization)
      if (!given || !safeEqual(sha256Hex(given), expected)) {
        throw new AppError(401, 'UNAUTHORIZED', 'GET /metrics needs the header Authorization: Bearer <metricsToken>', {
          headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        })
      }
      set.headers['content-type'] = EXPOSITION_CONTENT_TYPE
      return deps.metrics.expose()
    },
    { detail: { hide: true } },
  )
}
