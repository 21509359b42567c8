import { insertMany } from '../../db/bulk.ts'
import type { Db } from '../../db/schema.ts'
import { prepared } from '../../db/prepared.ts'

export interface NewEvent {
  project_id: number
  contact_id: string
  name: string
  data: Record<string, unknown> | undefined
}

export const insertEvent = (db: Db, event: NewEvent, now: number) =>
  insert(db, { ...event, data: event.data === undefined ? null : JSON.stringify(event.data), now })

const insert = prepared((db, p: Omit<NewEvent, 'data'> & { data: string | null; now: number }) =>
  db.insertInto('events').values({ project_id: p.project_id, contact_id: p.contact_id, name: p.name, data: p.data, created_at: p.now }),
)

/** An event as a bulk write takes it: its data already JSON text. */
export interface EventRow {
  project_id: number
  contact_id: string
  name: string
  data: string | null
  created_at: number
}

/** Rows in one statement: a large change is written in parts of this size. */
const EVENTS_PER_STATEMENT = 2000

export async function insertEvents(db: Db, rows: readonly EventRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += EVENTS_PER_STATEMENT) {
    await insertMany(db, 'events', ['project_id', 'contact_id', 'name', 'data', 'created_at'], rows.slice(i, i + EVENTS_PER_STATEMENT))
  }
}
