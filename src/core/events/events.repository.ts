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

/** A page of the contact's events, newest first, from before the event `beforeId` when given. */
export const contactEventPage = (db: Db, projectId: number, contactId: string, limit: number, beforeId?: number) =>
  db
    .selectFrom('events')
    .select(['id', 'name', 'data', 'created_at'])
    .where('project_id', '=', projectId)
    .where('contact_id', '=', contactId)
    .$if(beforeId !== undefined, (qb) => qb.where('id', '<', beforeId!))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()

/** Deletes every event of the contact; answers how many. */
export async function deleteContactEvents(db: Db, projectId: number, contactId: string): Promise<number> {
  const result = await db.deleteFrom('events').where('project_id', '=', projectId).where('contact_id', '=', contactId).executeTakeFirst()
  return Number(result.numDeletedRows)
}
