import { commitOrderOf, committedAfter, cursorAt, readingOrder, type EventCursor } from '../../db/event-cursors.ts'
import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Logger } from '../../lib/logger.ts'
import { emailEventsWithEmail, lastSettledEmailEvent } from '../emails/email-queries.ts'
import { isTimeBased, type CompileContext } from './compile.ts'
import { compileContext, conditionOf } from './membership.ts'
import { membershipDrift, refreshMemberships, refreshSegmentContacts } from './segment-tracking.ts'

export interface TrackerDeps {
  db: Db
  /** Runs a write: the server's group-commit writer. */
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  intervalMs?: number
}

const INTERVAL_MS = 60_000
/** Contacts re-evaluated in one write: keeps each transaction short for the writes queued behind it. */
const CONTACTS_PER_WRITE = 1000
const ACTIVITY_PER_READ = 10_000

async function inChunks(ids: readonly string[], work: (chunk: string[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < ids.length; i += CONTACTS_PER_WRITE) await work(ids.slice(i, i + CONTACTS_PER_WRITE))
}

/**
 * What no write to a contact announces, on a timer: tracked segments whose membership moves with
 * time (or mail activity) are compared with their recorded members, and contacts whose emails
 * got new events are re-evaluated. Differences are found by reading, outside the writer; each
 * contact found is then re-evaluated inside a write, so a change made meanwhile is not undone.
 */
export function createMembershipTracker(deps: TrackerDeps) {
  const { db, write, clock, logger } = deps
  let timer: ReturnType<typeof setInterval> | undefined
  let round: Promise<void> | undefined
  /** The last email event applied; later ones are activity the segments have not seen. */
  let applied: EventCursor | undefined

  const lastEmailEvent = () => lastSettledEmailEvent(db)
  const anyTracked = async () => (await db.selectFrom('segments').select('id').where('track_membership', '=', 1).limit(1).executeTakeFirst()) !== undefined

  /** Re-evaluates the contacts whose emails got events since the last round. */
  async function applyActivity(now: number): Promise<void> {
    if (applied === undefined || !(await anyTracked())) {
      applied = await lastEmailEvent()
      return
    }
    for (let more = true; more; ) {
      const rows = await emailEventsWithEmail(db)
        .select(['ev.id', 'em.project_id', 'em.contact_id', commitOrderOf(db, 'ev')])
        .where(committedAfter(db, 'ev', applied))
        .orderBy(readingOrder(db, 'ev'))
        .limit(ACTIVITY_PER_READ)
        .execute()
      for (const [projectId, ids] of contactsByProject(rows)) await inChunks(ids, (chunk) => write((trx) => refreshMemberships(trx, projectId, chunk, now)))
      applied = rows.length > 0 ? cursorAt(rows.at(-1)!) : applied
      more = rows.length === ACTIVITY_PER_READ
    }
  }

  /** Brings every tracked segment whose membership moves with time up to `now`. */
  async function refreshTimeBased(now: number): Promise<void> {
    const tracked = await db.selectFrom('segments').selectAll().where('track_membership', '=', 1).where('type', '=', 'DYNAMIC').execute()
    const contexts = new Map<number, CompileContext>()
    for (const segment of tracked) {
      const context = contexts.get(segment.project_id) ?? (await compileContext(db, segment.project_id, now))
      contexts.set(segment.project_id, context)
      const condition = conditionOf(segment)
      if (!condition || !isTimeBased(condition, context.segments)) continue
      try {
        const drift = await membershipDrift(db, segment, context)
        await inChunks(drift, (chunk) => write((trx) => refreshSegmentContacts(trx, segment.id, chunk, now)))
        if (drift.length > 0) logger.debug('SEGMENTS', `${drift.length} contacts re-evaluated`, { segmentId: segment.id })
      } catch (error) {
        logger.error('SEGMENTS', 'membership refresh failed', { segmentId: segment.id, error: String(error) })
      }
    }
  }

  /** One round, activity first and then time; a round asked for while one runs is that one. */
  function tick(): Promise<void> {
    round ??= (async () => {
      const now = clock.now()
      await applyActivity(now)
      await refreshTimeBased(now)
    })().finally(() => (round = undefined))
    return round
  }

  return {
    tick,
    async start() {
      applied = await lastEmailEvent()
      timer = setInterval(() => tick().catch((error) => logger.error('SEGMENTS', 'membership round failed', { error: String(error) })), deps.intervalMs ?? INTERVAL_MS)
      timer.unref()
    },
    async stop() {
      clearInterval(timer)
      await round?.catch(() => {})
    },
  }
}

export type MembershipTracker = ReturnType<typeof createMembershipTracker>

function contactsByProject(rows: ReadonlyArray<{ project_id: number; contact_id: string | null }>): Map<number, string[]> {
  const byProject = new Map<number, Set<string>>()
  for (const row of rows) {
    if (row.contact_id) (byProject.get(row.project_id) ?? byProject.set(row.project_id, new Set()).get(row.project_id)!).add(row.contact_id)
  }
  return new Map([...byProject].map(([projectId, ids]) => [projectId, [...ids]]))
}
