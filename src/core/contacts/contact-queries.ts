import { textsIn } from '../../db/lists.ts'
import type { Db } from '../../db/schema.ts'

// The contacts table as other modules may read it: query fragments that segments, campaigns and
// workflows narrow with their own conditions, and the lookups they need, so that the table is
// named in its own module alone (src/db/owners.ts).

/** The contacts (`c`) of a project, for a query that narrows them and selects from them. */
export const projectContacts = (db: Db, projectId: number) => db.selectFrom('contacts as c').where('c.project_id', '=', projectId)

/** Every contact (`c`), for a query that picks its contacts itself: by id, or by a project clause of its own. */
export const everyContact = (db: Db) => db.selectFrom('contacts as c')

/**
 * The contacts table as a subquery to join under an alias: `.innerJoin(contactRows(db).as('c'),
 * 'c.id', 'r.contact_id')`. Both databases' planners read it as the table itself.
 */
export const contactRows = (db: Db) => db.selectFrom('contacts').selectAll()

/** Of these contact ids, the ones that are the project's contacts. */
export async function existingContactIds(db: Db, projectId: number, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db.selectFrom('contacts').select('id').where('project_id', '=', projectId).where('id', 'in', textsIn(db, ids)).execute()
  return new Set(rows.map((row) => row.id))
}

/** The project's contacts with these address keys, as key -> contact id; keys of no contact are left out. */
export async function contactIdsByKey(db: Db, projectId: number, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map()
  const rows = await db.selectFrom('contacts').select(['id', 'email_key']).where('project_id', '=', projectId).where('email_key', 'in', textsIn(db, keys)).execute()
  return new Map(rows.map((row) => [row.email_key, row.id]))
}
