import { Elysia, ElysiaCustomStatusResponse, StatusMap } from 'elysia'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'

/** Most answers take milliseconds; uploads, exports and slow clients take seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** Whatever other method a client makes up is one label value, not one each. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/**
 * Counts and times every request by method, route and status, and logs it at debug (tag HTTP).
 * The route is the pattern that matched (`/campaigns/:id`), never the path, whose ids would make
 * a series each (and whose tokens must not reach the log); a request that no route took, a 404 or
 * one refused before routing, is `unmatched`.
 *
 * It records in Elysia's mapResponse hook, which runs once for every answer, the error handler's
 * included, just before it is serialised (afterResponse would cost a setImmediate a request, three
 * times as much). The hook gives the answer back unchanged: Elysia 1.4's error path takes whatever
 * a mapResponse hook returns, undefined included, as the body. Being first and returning a value,
 * it would keep a later mapResponse hook from running: one that changes answers goes before it.
 */
export function observeRequests(metrics: Registry, logger: Logger) {
  const requests = metrics.counter({
    name: 'mailstead_http_requests_total',
    help: 'HTTP requests by method, route pattern (unmatched: no route) and status',
    labelNames: ['method', 'route', 'status'],
  })
  const duration = metrics.histogram({
    name: 'mailstead_http_request_duration_seconds',
    help: 'Seconds from receiving an HTTP request to its response, ready to send, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: BUCKETS,
  })
  return new Elysia()
    .decorate('receivedAt', 0)
    .onRequest((context) => {
      context.receivedAt = performance.now()
    })
    .mapResponse({ as: 'global' }, ({ request, route, set, responseValue, receivedAt }) => {
      const ms = performance.now() - receivedAt
      const method = METHODS.has(request.method) ? request.method : 'OTHER'
      const pattern = route || 'unmatched'
      const status = statusOf(responseValue, set.status)
      requests.inc({ method, route: pattern, status: String(status) })
      duration.observe({ method, route: pattern }, ms / 1000)
      logger.debug('HTTP', `${method} ${pattern} ${status}`, { method, route: pattern, status, ms: Math.round(ms * 10) / 10, requestId: set.headers['x-request-id'] })
      // Typed as a Response, Elysia takes any answer here.
      return responseValue as Response
    })
}

/** The status the answer will have: a Response's own, Elysia's status(), or the context's. */
function statusOf(value: unknown, status: number | keyof typeof StatusMap | undefined): number {
  if (value instanceof Response) return value.status
  if (value instanceof ElysiaCustomStatusResponse) return value.code
  return typeof status === 'number' ? status : StatusMap[status ?? 'OK']
}
