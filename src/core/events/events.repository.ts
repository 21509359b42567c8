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
