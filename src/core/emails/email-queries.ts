import { sql, type RawBuilder } from 'kysely'
import { lastSettled, type EventCursor } from '../../db/event-cursors.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db } from '../../db/schema.ts'
import { projectRows } from '../projects/project-queries.ts'

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

/** Whether the email's body is stored: retention deletes it once its deliveries are settled. */
export const hasStoredBody = async (db: Db, emailId: string) =>
  (await db.selectFrom('email_contents').select('email_id').where('email_id', '=', emailId).executeTakeFirst()) !== undefined

/** Where the email events settled so far end, for a reader that follows them past a cursor of its own. */
export const lastSettledEmailEvent = (db: Db): Promise<EventCursor> => lastSettled(db, 'email_events')

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

/** What an attempt needs of its email: the stored message (null until built), its DKIM header, domain, From, and whether its project is disabled. */
export const emailForAttempt = async (db: Db, emailId: string) => (await selectForAttempt(db, { id: emailId }))[0]

const selectForAttempt = prepared((db, p: { id: string }) =>
  db
    .selectFrom('emails')
    .leftJoin('email_contents', 'email_contents.email_id', 'emails.id')
    .innerJoin(projectRows(db).as('projects'), 'projects.id', 'emails.project_id')
    .select(['email_contents.mime', 'emails.dkim_header', 'emails.domain_id', 'emails.from_address', 'projects.disabled'])
    .where('emails.id', '=', p.id),
)
