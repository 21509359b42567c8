import { Elysia } from 'elysia'
import { membershipOf } from '../core/accounts/members.service.ts'
import type { ProjectRole } from '../core/accounts/roles.ts'
import type { KeyScope, KeyType } from '../core/projects/keys.ts'
import type { Caller } from '../core/projects/projects.service.ts'
import { AppError } from '../lib/errors.ts'
import { clientKey } from '../lib/ip.ts'
import { clientAddress, type ServerLike } from './client-address.ts'
import type { HttpDeps } from './deps.ts'
import { authorizeScope } from './key-scopes.ts'
import { authorize } from './permissions.ts'
import { rateLimitHeaders, type RateLimitState } from './rate-limit.ts'
import { authenticateSession, sessionToken } from './session.ts'

/** Who is calling a project's route: an API key (acting as admin), or a signed-in member with their role. */
export interface RequestCaller {
  keyType: KeyType | 'session'
  project: Caller['project']
  role: ProjectRole
  /** The signed-in account; null for a key. */
  accountId: string | null
  /** A key's scope (src/http/key-scopes.ts); a session's is full, its role deciding. */
  scope: KeyScope
}

type Headers = Record<string, string | undefined>

/** The token of an `Authorization: Bearer <token>` header. */
export const bearer = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1]

/**
 * Authenticates the request's key (authenticator.logIn: malformed keys refused before any lookup,
 * others slowed after failed logins from the address) and counts it against its budget, or,
 * without an Authorization header, the session cookie and its X-Project-Id (sessionCaller); then
 * refuses what the caller's role may not write (permissions.ts). Routes of a file that uses this
 * see `caller`; a key's scope is checked there too (key-scopes.ts); `publicKey: true` admits public keys too. `projectQuery: true` lets a session name
 * its project in the projectId query parameter instead (a document the console frames, which
 * cannot send headers, a download link: GET /api/v1/emails/{emailId}/preview and GET /contacts/export only).
 *
 * Every well-formed key is checked, even from an address that has spent its budget of failed
 * ones: a right key is never locked out by others' mistakes at the same address, only slowed with
 * them. Failures count against that budget; once it is spent they get 429 instead of 401, which
 * tells a client that retries at once to stop.
 */
export const requireKey = (deps: HttpDeps, options: { publicKey?: boolean; projectQuery?: boolean } = {}) =>
  new Elysia().derive({ as: 'scoped' }, async ({ headers, set, request, server, route, query }): Promise<{ caller: RequestCaller }> => {
    const parts = { request, server: server as ServerLike }
    // A request with an Authorization header is a key's, as it always was; without one, a session cookie may stand in.
    const token = headers.authorization === undefined ? sessionToken(headers.cookie) : undefined
    // A document the console frames cannot send headers: such a read may name its project in ?projectId= instead.
    const project = headers['x-project-id'] ?? (options.projectQuery && typeof query.projectId === 'string' ? query.projectId : undefined)
    const caller = token === undefined ? await keyCaller(deps, options, parts, headers, set) : await sessionCaller(deps, parts, token, project, set)
    // The route the router matched, never the path: /api/v1/project/ reaches the same handler as /api/v1/project.
    // A key's scope first: a read key's write is refused for its scope, whatever its role would allow.
    authorizeScope(caller.scope, request.method, route)
    authorize(caller.role, request.method, route)
    return { caller }
  })

async function keyCaller(deps: HttpDeps, options: { publicKey?: boolean }, parts: { request: Request; server: ServerLike }, headers: Headers, set: { headers: Record<string, unknown> }): Promise<RequestCaller> {
  const client = clientAddress(parts.request, parts.server, deps.trustedProxies)
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
  return { keyType: caller.keyType, project: caller.project, role: 'admin', accountId: null, scope: caller.scope }
}

/**
 * A signed-in person's call to a project's route: the session (CSRF-checked on writes), the
 * project its X-Project-Id header names, and their role there. Not a member: 403, whether the
 * project exists or not.
 */
async function sessionCaller(deps: HttpDeps, parts: { request: Request; server: ServerLike }, token: string, header: string | undefined, set: { headers: Record<string, unknown> }): Promise<RequestCaller> {
  const session = await authenticateSession(deps, parts, token, set)
  if (header === undefined || !/^[1-9][0-9]{0,15}$/.test(header)) {
    throw new AppError(400, 'BAD_REQUEST', 'A request with a session names its project in the X-Project-Id header', {
      suggestion: 'Send X-Project-Id: <project id>, one of GET /api/v1/account/projects.',
    })
  }
  const membership = await membershipOf(deps.db, session.accountId, Number(header), session.instanceOwner)
  if (!membership) throw new AppError(403, 'FORBIDDEN', `You are not a member of project ${header}`, { suggestion: 'Pick one of GET /api/v1/account/projects.' })
  if (membership.disabled === 1) throw new AppError(403, 'PROJECT_DISABLED', 'This project is disabled')
  return {
    keyType: 'session',
    project: { id: membership.id, name: membership.name, rateLimitPerMinute: membership.rate_limit_per_minute },
    role: membership.role,
    accountId: session.accountId,
    scope: 'full',
  }
}

/** Public keys spend their project's public-key budget and their address's share of it; secret keys their project's. */
async function spend(deps: HttpDeps, caller: Caller, address: string): Promise<RateLimitState> {
  const project = caller.project
  if (caller.keyType === 'secret') return deps.rateLimiter.take('secret-key', String(project.id), project.rateLimitPerMinute)
  const own = await deps.rateLimiter.take('public-key-address', `${project.id} ${address}`)
  const shared = await deps.rateLimiter.take('public-key', String(project.id))
  // The headers tell of the budget that will run out first.
  return own.remaining <= shared.remaining ? own : shared
}
