/**
 * POST routes that change nothing: they take a body too large for a query string (a whole segment
 * condition, up to 200 filters) and only read. Roles (src/http/permissions.ts) and key scopes
 * (src/http/key-scopes.ts) treat them as the GETs they stand for: every role and a read key may
 * call them. The session's CSRF check still applies, as on every POST.
 */
export const READ_ONLY_POSTS: ReadonlySet<string> = new Set(['POST /segments/preview'])

/** Whether a request to the matched `route` is one of the read-only POSTs. */
export const isReadOnlyPost = (method: string, route: string) => READ_ONLY_POSTS.has(`${method.toUpperCase()} ${route.replace(/\/+$/, '') || '/'}`)
