import { Elysia } from 'elysia'
import { AppError } from '../lib/errors.ts'

/*
 * Cross-origin requests. Only /v1/track is made for browsers: a site's own pages call it with the
 * project's public key (pk_), which may only track events. Every other route takes a secret key
 * or the console's session and sends no CORS header, so a browser on another origin can neither
 * call it nor read its answer; a preflight for one is refused with a 403 that says why.
 */

/** The routes a page on any origin may call, as the router names them (so /v1/track/ is /v1/track too). */
const OPEN_ROUTES = new Set(['/v1/track'])

/** `route` is Elysia's matched route; undefined when none matched (a 404 has no CORS header). */
export const isCrossOriginRoute = (route: string | undefined) => route !== undefined && OPEN_ROUTES.has(route)

/** On every answer of an open path, errors included, so that a page can read why it was refused. */
export const CROSS_ORIGIN_HEADERS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-request-id, retry-after' }

const PREFLIGHT_HEADERS = {
  ...CROSS_ORIGIN_HEADERS,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '86400',
}

export const corsRoutes = () =>
  new Elysia()
    .options(
      '/v1/track',
      ({ set }) => {
        set.status = 204
        Object.assign(set.headers, PREFLIGHT_HEADERS)
      },
      { detail: { summary: 'Preflight for /v1/track: any origin may call it with a public key', tags: ['Events'] } },
    )
    .options(
      '/*',
      () => {
        throw new AppError(403, 'CROSS_ORIGIN_REFUSED', 'Only /v1/track may be called from a browser on another origin', {
          suggestion: 'Call this route from your server with a secret key; from a web page, track events through /v1/track with the public key (pk_).',
        })
      },
      { detail: { hide: true } },
    )
