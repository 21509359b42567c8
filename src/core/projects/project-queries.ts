import type { Db } from '../../db/schema.ts'

// The projects table as other modules may read it, so that it is named in its own module alone
// (src/db/owners.ts).

/**
 * The projects table as a subquery to join under an alias: `.innerJoin(projectRows(db).as('p'),
 * 'p.id', 'e.project_id')`. Both databases' planners read it as the table itself.
 */
export const projectRows = (db: Db) => db.selectFrom('projects').selectAll()
