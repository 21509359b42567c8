import { Elysia } from 'elysia'
import { findLiveSession, sessionPolicyOf, touchSession, type LiveSession } from '../core/accounts/sessions.service.ts'
import { csrfTokenFor } from '../core/accounts/tokens.ts'
import { safeEqual } from '../lib/crypto.ts'
import { AppError } from '../lib/errors.ts'
import { clientKey } from '../lib/ip.ts'
import { clientAddress, viaHttps, type ServerLike } from './client-address.ts'
import type { HttpDeps } from './deps.ts'
import { rateLimitHeaders } from './rate-limit.ts'

/** The session cookie's name. Its value is the session token; nothing else identifies a browser. */
export const SESSION_COOKIE = 'mailstead_session'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
export const isWrite = (method: string) => !SAFE_METHODS.has(method)

/** The session token in a Cookie header, if one is there. */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim()
  }
  return undefined
}

interface RequestParts {
  request: Request
  server: ServerLike
}

/** Secure whenever the browser uses HTTPS: MAILSTEAD_PUBLIC_URL says so, or the request came that way. */
const secure = (deps: HttpDeps, { request, server }: RequestParts) =>
  deps.config.publicUrl.startsWith('https:') || viaHttps(request, server, deps.trustedProxies)

/**
 * The Set-Cookie of a new session (`token`), or of its end (undefined): HttpOnly so that no script
 * reads it, SameSite=Lax so that other sites' forms and scripts do not carry it, Secure behind HTTPS.
 */
export function sessionCookie(deps: HttpDeps, parts: RequestParts, token: string | undefined, expiresAt = 0): string {
  const lifetime = token === undefined ? 0 : Math.max(0, Math.round((expiresAt - deps.clock.now()) / 1000))
  return [`${SESSION_COOKIE}=${token ?? ''}`, 'Path=/', `Max-Age=${lifetime}`, 'HttpOnly', 'SameSite=Lax', ...(secure(deps, parts) ? ['Secure'] : [])].join('; ')
}

const csrfRefused = (message: string) =>
  new AppError(403, 'CSRF_REJECTED', message, {
    suggestion: 'Call from the console\'s own origin and send the session\'s csrfToken (from sign-in or GET /api/v1/auth/session) in the X-CSRF-Token header.',
  })

/**
 * Refuses a request a browser sent from another site: its Origin, when it has one, must be this
 * server's (MAILSTEAD_PUBLIC_URL's, or the one it was reached at), and Sec-Fetch-Site must not say
 * cross-site. Every write with a cookie, and every sign-in, is checked.
 */
export function checkOrigin(deps: HttpDeps, parts: RequestParts): void {
  const { request } = parts
  if (request.headers.get('sec-fetch-site') === 'cross-site') throw csrfRefused('Cross-site requests cannot use a session')
  const origin = request.headers.get('origin')
  if (origin === null) return
  // Bun builds the request's URL from its Host header: the address the browser used.
  const own = `${viaHttps(request, parts.server, deps.trustedProxies) ? 'https' : 'http'}://${new URL(request.url).host}`
  if (origin !== new URL(deps.config.publicUrl).origin && origin !== own) throw csrfRefused(`Requests from ${origin} cannot use a session here`)
}

export const notSignedIn = () =>
  new AppError(401, 'UNAUTHORIZED', 'Not signed in, or the session has ended', {
    suggestion: 'Sign in with POST /api/v1/auth/sign-in, or send Authorization: Bearer <API key>.',
  })

/**
 * The session a request's cookie opens, as every cookie-authenticated route reads it: a 401 when
 * there is none; for a write, the origin and the X-CSRF-Token header are checked first. It spends
 * the account's `session` budget and writes its use down now and then.
 */
export async function authenticateSession(deps: HttpDeps, parts: RequestParts, token: string, set: { headers: Record<string, unknown> }): Promise<LiveSession> {
  const { request } = parts
  const now = deps.clock.now()
  const policy = sessionPolicyOf(deps.config)
  const session = await findLiveSession(deps.db, token, now, policy)
  if (!session) {
    await deps.rateLimiter.take('unauthenticated', clientKey(clientAddress(request, parts.server, deps.trustedProxies)))
    throw notSignedIn()
  }
  if (isWrite(request.method)) {
    checkOrigin(deps, parts)
    if (!safeEqual(request.headers.get('x-csrf-token') ?? '', csrfTokenFor(deps.config.secret, session.id))) {
      throw csrfRefused('A write with a session cookie needs the X-CSRF-Token header')
    }
  }
  Object.assign(set.headers, rateLimitHeaders(await deps.rateLimiter.take('session', session.accountId)))
  if (session.stale) {
    const expiresAt = await deps.writer.run((trx) => touchSession(trx, session, now, policy))
    // The cookie lasts as long as the session now does.
    set.headers['set-cookie'] = sessionCookie(deps, parts, token, expiresAt)
  }
  return session
}

/** Routes for a signed-in person, not a project (their sessions, their projects): `session` is theirs. */
export const requireSession = (deps: HttpDeps) =>
  new Elysia().derive({ as: 'scoped' }, async ({ headers, request, server, set }): Promise<{ session: LiveSession }> => {
    const token = sessionToken(headers.cookie)
    if (token === undefined) throw notSignedIn()
    set.headers['cache-control'] = 'no-store'
    return { session: await authenticateSession(deps, { request, server: server as ServerLike }, token, set) }
  })
