import { Elysia } from 'elysia'
import { ASSETS_PATH } from '../console/bundle.ts'
import { consoleAssets } from '../console/assets.ts'
import { pathOf } from '../request-body.ts'
import type { HttpDeps } from '../deps.ts'
import { AppError } from '../../lib/errors.ts'
import { IMMUTABLE, sendStaticFile } from '../static-file.ts'

/**
 * The console's headers. Scripts, styles, fetches and frames come from this server only (email
 * previews are framed from it, sandboxed); the console is never framed itself, and a link out of
 * it tells the other site nothing.
 */
export const CONSOLE_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'self'",
    "child-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
} as const

/**
 * The index's headers: the console's, its policy also allowing the index's own inline styles (the
 * first-paint shell) and scripts (the theme) by their hashes, so that no other inline one runs.
 */
export function indexHeaders(hashes: { styleHashes: readonly string[]; scriptHashes: readonly string[] }): Record<string, string> {
  const allow = (policy: string, directive: string, sources: readonly string[]) =>
    sources.length === 0 ? policy : policy.replace(`${directive} 'self'`, `${directive} 'self' ${sources.join(' ')}`)
  const policy = allow(allow(CONSOLE_HEADERS['content-security-policy'], 'script-src', hashes.scriptHashes), 'style-src', hashes.styleHashes)
  return { ...CONSOLE_HEADERS, 'content-security-policy': policy }
}

/** The index is checked every time; assets have hashed names (IMMUTABLE). */
const REVALIDATE = 'no-cache'

const acceptsHtml = (request: Request) => /\btext\/html\b/i.test(request.headers.get('accept') ?? '')

/**
 * The web console under /console/: its assets by hashed name, and for any other address under it
 * the app itself, which routes in the browser (so a page reloaded anywhere shows that page). A
 * browser asking for / is sent to /console/; anything else asking for / gets the 404 it always got.
 * None of it is part of the API, so none of it is in the OpenAPI document.
 */
export const consoleRoutes = (deps: HttpDeps) => {
  let headersOfIndex: Record<string, string> | undefined
  const app = async (request: Request, path: string, requestId: unknown) => {
    const assets = await consoleAssets().catch((error: unknown) => {
      deps.logger.error('CONSOLE', 'the console could not be loaded', { error: String((error as Error)?.message ?? error) })
      throw error
    })
    if (!path.startsWith(ASSETS_PATH)) return sendStaticFile(request, assets.index, (headersOfIndex ??= indexHeaders(assets)), REVALIDATE, requestId)
    const asset = assets.files.get(path.slice(ASSETS_PATH.length))
    // A missing asset is a 404, not the app: a script tag given HTML would fail in a stranger way.
    return asset ? sendStaticFile(request, asset, CONSOLE_HEADERS, IMMUTABLE, requestId) : undefined
  }
  // Elysia takes /console/ for the /console route: the pathname tells them apart.
  const serve = async ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }) => {
    const requestId = set.headers['x-request-id']
    const path = pathOf(request)
    if (path === '/console') return new Response(null, { status: 301, headers: { location: '/console/', 'x-request-id': String(requestId) } })
    const answer = await app(request, path, requestId)
    if (!answer) throw new AppError(404, 'NOT_FOUND', `No route for GET ${path}`)
    return answer
  }
  return new Elysia()
    // Every request passes here: the cheapest tests first, and no URL parsed.
    .onRequest(({ request, set }) => {
      if (request.method !== 'GET' || !acceptsHtml(request) || pathOf(request) !== '/') return
      return new Response(null, { status: 302, headers: { location: '/console/', 'x-request-id': String(set.headers['x-request-id']) } })
    })
    .get('/console', serve, { detail: { hide: true } })
    .get('/console/*', serve, { detail: { hide: true } })
}
