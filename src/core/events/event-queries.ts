import { sql, type RawBuilder } from 'kysely'
import { lastSettled, type EventCursor } from '../../db/event-cursors.ts'
import type { Db } from '../../db/schema.ts'

// The events table as other modules may read it (segments' conditions, the workflow scanner), so
// that it is named in its own module alone (src/db/owners.ts).

/** Where the events settled so far end, for a reader that follows them past a cursor of its own. */
export const lastSettledEvent = (db: Db): Promise<EventCursor> => lastSettled(db, 'events')

/** Every event (`ev`), for a reader that follows them past a cursor of its own. */
export const eventLog = (db: Db) => db.selectFrom('events as ev')

/**
 * The events of a name about one contact (`contactId`, usually a column of the outer query), as
 * the rows of an EXISTS, and the column of their time (`at`) for a condition on when.
 */
export function contactEvents(contactId: RawBuilder<unknown>, name: string): { rows: RawBuilder<unknown>; at: RawBuilder<unknown> } {
  return { rows: sql`SELECT 1 FROM events AS e WHERE e.contact_id = ${contactId} AND e.name = ${name}`, at: sql`e.created_at` }
}
