import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { invalid } from '../../lib/errors.ts'
import { contactEventPage, deleteContactEvents } from './events.repository.ts'

/** One event of a contact's timeline, as the API shows it. */
export interface TimelineEvent {
  id: string
  name: string
  data: unknown
  createdAt: string
}

const toTimelineEvent = (row: { id: number; name: string; data: string | null; created_at: number }): TimelineEvent => ({
  id: String(row.id),
  name: row.name,
  data: row.data === null ? null : (JSON.parse(row.data) as unknown),
  createdAt: isoTime(row.created_at),
})

const cursorOf = (cursor: string | undefined): number | undefined => {
  if (cursor === undefined) return undefined
  const match = /^e([1-9]\d{0,15})$/.exec(cursor)
  if (!match) throw invalid('cursor', 'is not a cursor returned by a previous page')
  return Number(match[1])
}

/**
 * A page of the contact's events, newest first (the order they were recorded in), paged by
 * cursor: an event recorded while paging comes before the first page, never twice.
 */
export async function contactTimeline(db: Db, projectId: number, contactId: string, limit: number, cursor?: string) {
  const rows = await contactEventPage(db, projectId, contactId, limit + 1, cursorOf(cursor))
  const page = rows.slice(0, limit)
  const hasMore = rows.length > limit
  return { events: page.map(toTimelineEvent), cursor: hasMore ? `e${page.at(-1)!.id}` : null, hasMore }
}

/** Every event of the contact, newest first: what a privacy export holds. */
export async function allContactEvents(db: Db, projectId: number, contactId: string): Promise<TimelineEvent[]> {
  const rows = await contactEventPage(db, projectId, contactId, Number.MAX_SAFE_INTEGER)
  return rows.map(toTimelineEvent)
}

/** Erases the contact's events (an erasure of the contact); answers how many. */
export const eraseContactEvents = (db: Db, projectId: number, contactId: string) => deleteContactEvents(db, projectId, contactId)
