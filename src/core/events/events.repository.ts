import type { Db } from '../../db/schema.ts'

export const insertEvent = (
  db: Db,
  event: { project_id: number; contact_id: string; name: string; data: Record<string, unknown> | undefined },
  now: number,
) =>
  db
    .insertInto('events')
    .values({ ...event, data: event.data === undefined ? null : JSON.stringify(event.data), created_at: now })
    .executeTakeFirstOrThrow()
