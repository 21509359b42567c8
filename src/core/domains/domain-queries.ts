import { prepared } from '../../db/prepared.ts'
import type { Db } from '../../db/schema.ts'

// The domains table as other modules may read it (sending, reports, guardrails), so that it is
// named in its own module alone (src/db/owners.ts).

/**
 * The domains table as a subquery to join under an alias: `.innerJoin(domainRows(db).as('domains'),
 * 'domains.id', 'emails.domain_id')`. Both databases' planners read it as the table itself.
 */
export const domainRows = (db: Db) => db.selectFrom('domains').selectAll()

/** The project's domain of this name, with what a send needs of it (its status, return path and tracking switches). */
export const findSenderDomain = async (db: Db, projectId: number, name: string) => (await selectSenderDomain(db, { projectId, name }))[0]

const selectSenderDomain = prepared((db, p: { projectId: number; name: string }) =>
  db
    .selectFrom('domains')
    .select(['id', 'name', 'status', 'return_path_label', 'open_tracking', 'click_tracking', 'transactional_open_tracking', 'transactional_click_tracking'])
    .where('project_id', '=', p.projectId)
    .where('name', '=', p.name),
)

/** The domains, of any project, whose return-path host is `label`.`name`, oldest first. */
export const domainsWithReturnPath = (db: Db, name: string, label: string) =>
  db.selectFrom('domains').select(['id', 'project_id', 'name', 'status']).where('name', '=', name).where('return_path_label', '=', label).orderBy('id').execute()

/** The names of these domains, by id; an id of no domain is left out. */
export async function domainNames(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('domains').select(['id', 'name']).where('id', 'in', ids).execute()
  return new Map(rows.map((row) => [row.id, row.name]))
}
