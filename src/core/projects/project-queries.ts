import type { Db } from '../../db/schema.ts'

// The projects table as other modules may read it, so that it is named in its own module alone
// (src/db/owners.ts).

/**
 * The projects table as a subquery to join under an alias: `.innerJoin(projectRows(db).as('p'),
 * 'p.id', 'e.project_id')`. Both databases' planners read it as the table itself.
 */
export const projectRows = (db: Db) => db.selectFrom('projects').selectAll()

/** The ids of every project, for a statement that writes a row per project. */
export const projectIds = (db: Db) => db.selectFrom('projects').select('id')

/** The project's default sender address, or null when it has none. */
export const defaultSenderOf = async (db: Db, projectId: number): Promise<string | null> =>
  (await db.selectFrom('projects').select('default_sender').where('id', '=', projectId).executeTakeFirstOrThrow()).default_sender

/** Whether the project is a sandbox (false for no such project). */
export const isSandboxProject = async (db: Db, projectId: number) =>
  (await db.selectFrom('projects').select('sandbox').where('id', '=', projectId).executeTakeFirst())?.sandbox === 1

/** The project's own send rate (mails a second), null when it keeps the server's, undefined for no such project. */
export const sendRateOf = async (db: Db, projectId: number): Promise<number | null | undefined> =>
  (await db.selectFrom('projects').select('send_rate_per_second').where('id', '=', projectId).executeTakeFirst())?.send_rate_per_second

/** Whether the project is disabled (false for no such project). */
export const isProjectDisabled = async (db: Db, projectId: number) =>
  (await db.selectFrom('projects').select('disabled').where('id', '=', projectId).executeTakeFirst())?.disabled === 1
