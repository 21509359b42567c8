import { mayWrite, type ProjectRole, type WriteFamily } from '../core/accounts/roles.ts'
import { AppError } from '../lib/errors.ts'
import { isReadOnlyPost } from './read-routes.ts'
import { isWrite } from './session.ts'

/**
 * Which kind of write each route family makes, by the route the router matched (`/contacts/:id`,
 * never the request's own spelling of it, which may end in a slash): with the roles' table
 * (src/core/accounts/roles.ts), the one place where roles are enforced. Reads are open to every
 * role, and so are the POSTs that only read (src/http/read-routes.ts). A write route that matches none counts as `settings`, which members and viewers may not
 * make; a test checks that every documented write route matches one.
 */
const FAMILIES: ReadonlyArray<readonly [RegExp, WriteFamily | ((method: string) => WriteFamily)]> = [
  [/^\/api\/v1\/project\/(members|invitations)(\/|$)/, 'members'],
  [/^\/api\/v1\/project$/, (method) => (method === 'DELETE' ? 'delete-project' : 'settings')],
  [/^\/api\/v1\/keys(\/|$)/, 'keys'],
  [/^\/(api\/v1\/)?domains(\/|$)/, 'domains'],
  [/^\/contacts\/:id\/erase$/, 'delete-data'],
  [/^\/webhooks(\/|$)/, 'webhooks'],
  [/^\/(v1\/send|api\/v1\/(emails|queue))(\/|$)/, 'sending'],
  [/^\/contacts\/bulk\/delete$/, 'delete-data'],
  [/^\/(contacts|templates|segments|campaigns|workflows|v1\/track|v1\/verify|api\/v1\/(contactBooks|campaigns|suppressions|forms))(\/|$)/, 'content'],
]

/** The kind of write a request makes; undefined for a read. `listed` is false for a write route no family names. */
export function writeFamilyOf(method: string, route: string): { family: WriteFamily; listed: boolean } | undefined {
  if (!isWrite(method) || isReadOnlyPost(method, route)) return undefined
  const found = FAMILIES.find(([pattern]) => pattern.test(route))
  if (!found) return { family: 'settings', listed: false }
  const [, family] = found
  return { family: typeof family === 'function' ? family(method) : family, listed: true }
}

const WHAT: Record<WriteFamily, string> = {
  members: 'manage members and invitations',
  'delete-project': 'delete the project',
  'delete-data': "delete contacts' data in bulk or erase a contact",
  settings: "change the project's settings",
  keys: 'manage API keys',
  domains: 'manage sending domains',
  webhooks: 'manage webhooks',
  sending: 'send email',
  content: 'change contacts, templates, segments, campaigns or workflows',
}

/** Throws 403 unless `role` may make this request to the matched `route`. */
export function authorize(role: ProjectRole, method: string, route: string): void {
  const write = writeFamilyOf(method, route)
  if (!write || mayWrite(role, write.family)) return
  throw new AppError(403, 'FORBIDDEN', `Your role in this project (${role}) cannot ${WHAT[write.family]}`, {
    suggestion: 'Ask an owner of the project for another role.',
  })
}
