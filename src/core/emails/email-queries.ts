import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/schema.ts'

// The emails and their events as other modules may read them: query fragments that analytics,
// segments, workflows, webhooks and tracking narrow with their own conditions, so that these
// tables are named in their own module alone (src/db/owners.ts).

/**
 * The emails table as a subquery to read or join under an alias: `.innerJoin(emailRows(db).as('e'),
 * 'e.id', 'r.email_id')`. Both databases' planners read it as the table itself.
 */
export const emailRows = (db: Db) => db.selectFrom('emails').selectAll()

/** Whether an email with this id is stored. */
export const emailExists = async (db: Db, emailId: string) =>
  (await db.selectFrom('emails').select('id').where('id', '=', emailId).executeTakeFirst()) !== undefined

/** Every email event (`ev`) with its email (`em`), for a reader that follows them past a cursor of its own. */
export const emailEventsWithEmail = (db: Db) => db.selectFrom('email_events as ev').innerJoin('emails as em', 'em.id', 'ev.email_id')

/**
 * The events of a status on the emails of one contact (`contactId`, usually a column of the outer
 * query), as the rows of an EXISTS, and the column of their time (`at`) for a condition on when.
 */
export function contactEmailActivity(contactId: RawBuilder<unknown>, status: string): { rows: RawBuilder<unknown>; at: RawBuilder<unknown> } {
  return {
    rows: sql`SELECT 1 FROM emails AS em JOIN email_events AS ev ON ev.email_id = em.id WHERE em.contact_id = ${contactId} AND ev.status = ${status}`,
    at: sql`ev.created_at`,
  }
}
