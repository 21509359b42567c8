import type { ProjectRole } from '../../db/accounts-schema.ts'

export type { ProjectRole }

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly ProjectRole[]

/**
 * The kinds of write a project's routes make. Every route's write belongs to one
 * (src/http/permissions.ts says which); reads belong to none: every role may read.
 */
export type WriteFamily = 'members' | 'delete-project' | 'delete-data' | 'settings' | 'keys' | 'domains' | 'webhooks' | 'sending' | 'content'

/**
 * What each role may write, the one table the server enforces: owner everything; admin all but
 * members and deleting the project; member the day-to-day work (sending, contacts, templates,
 * segments, campaigns, workflows, suppressions) but no keys, domains, webhooks or settings, nor
 * the project's data deleted in bulk (contacts by selection or filter); viewer nothing. A request
 * with an API key acts as admin.
 */
const WRITES: Record<ProjectRole, ReadonlySet<WriteFamily>> = {
  owner: new Set(['members', 'delete-project', 'delete-data', 'settings', 'keys', 'domains', 'webhooks', 'sending', 'content']),
  admin: new Set(['delete-data', 'settings', 'keys', 'domains', 'webhooks', 'sending', 'content']),
  member: new Set(['sending', 'content']),
  viewer: new Set(),
}

export const mayWrite = (role: ProjectRole, family: WriteFamily): boolean => WRITES[role].has(family)

export const isRole = (value: string): value is ProjectRole => (ROLES as readonly string[]).includes(value)
