import type { Db } from '../../db/schema.ts'
import { insertEvent, insertEvents, type EventRow, type NewEvent } from './events.repository.ts'

/*
 * What other modules record in a contact's history (an unsubscription, a segment's entries and
 * exits): the events module owns the table and writes it. Apart from events.service so that the
 * modules that record here need not depend on what `track` depends on.
 */

export const recordEvent = (db: Db, event: NewEvent, now: number) => insertEvent(db, event, now)

export const recordEvents = (db: Db, rows: readonly EventRow[]) => insertEvents(db, rows)
