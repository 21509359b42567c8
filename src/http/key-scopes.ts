import { scopeAllows, type KeyAccess, type KeyScope } from '../core/projects/keys.ts'
import { AppError } from '../lib/errors.ts'
import { isReadOnlyPost } from './read-routes.ts'

/**
 * What a key's scope lets it call, by the route the router matched (never the path as spelled):
 * the one place where routes are mapped to scopes. A route is one of:
 * - `send`: sending email, the routes below and nothing else;
 * - `read`: a GET (or HEAD), or a POST that only reads (src/http/read-routes.ts), which changes nothing;
 * - `write`: everything else, a `full` key's alone.
 * Which scope allows which is `scopeAllows` of src/core/projects/keys.ts. A new route is a read or
 * a write by its method: no list has to remember it, and a `sending` key reaches it only once it
 * is named here (test/integration/key-scopes.test.ts walks every route of the API document with
 * each scope).
 */
export const SENDING_ROUTES: ReadonlySet<string> = new Set(['POST /api/v1/emails', 'POST /api/v1/emails/batch', 'POST /v1/send'])

/** What a request to the matched `route` does, as scopes see it (src/core/projects/keys.ts says which scope allows which). */
export function accessOf(method: string, route: string): KeyAccess {
  const upper = method.toUpperCase()
  if (SENDING_ROUTES.has(`${upper} ${route.replace(/\/+$/, '') || '/'}`)) return 'send'
  return upper === 'GET' || upper === 'HEAD' || isReadOnlyPost(upper, route) ? 'read' : 'write'
}

const WHAT: Record<KeyScope, string> = {
  full: 'everything',
  sending: 'sending email (POST /api/v1/emails, /api/v1/emails/batch, /v1/send and the SMTP relay)',
  read: 'reading (GET requests)',
}

/** Throws 403 unless a key of `scope` may make this request to the matched `route`. */
export function authorizeScope(scope: KeyScope, method: string, route: string): void {
  if (scopeAllows(scope, accessOf(method, route))) return
  throw new AppError(403, 'FORBIDDEN', `This API key's scope is ${scope}: it allows ${WHAT[scope]} only`, {
    suggestion: 'Use a key whose scope allows this request (full access), or create one with POST /api/v1/keys.',
  })
}
