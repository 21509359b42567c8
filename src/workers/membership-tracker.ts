import { createWorker } from '../cluster/worker.ts'
import type { EventCursor } from '../db/event-cursors.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import { lastSettledEmailEvent } from '../core/emails/index.ts'
import { anyTracked, compileContext, conditionOf, contactsWithActivity, isTimeBased, membershipDrift, refreshMemberships, refreshSegmentContacts, trackedDynamicSegments, type CompileContext } from '../core/segments/index.ts'

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
  let round: Promise<void> | undefined
  /** The last email event applied; later ones are activity the segments have not seen. */
  let applied: EventCursor | undefined

  const lastEmailEvent = () => lastSettledEmailEvent(db)

  /** Re-evaluates the contacts whose emails got events since the last round. */
  async function applyActivity(now: number): Promise<void> {
    if (applied === undefined || !(await anyTracked(db))) {
      applied = await lastEmailEvent()
      return
    }
    for (let more = true; more; ) {
      const activity = await contactsWithActivity(db, applied, ACTIVITY_PER_READ)
      for (const [projectId, ids] of activity.byProject) await inChunks(ids, (chunk) => write((trx) => refreshMemberships(trx, projectId, chunk, now)))
      applied = activity.cursor
      more = activity.more
    }
  }

  /** Brings every tracked segment whose membership moves with time up to `now`. */
  async function refreshTimeBased(now: number): Promise<void> {
    const tracked = await trackedDynamicSegments(db)
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

  /** One round, activity first and then time; a round asked for while one runs is that one. A stop waits for it. */
  function tick(): Promise<void> {
    round ??= worker.track(
      (async () => {
        const now = clock.now()
        await applyActivity(now)
        await refreshTimeBased(now)
      })().finally(() => (round = undefined)),
    )
    return round
  }

  const worker = createWorker(
    {
      tag: 'SEGMENTS',
      failed: 'membership round failed',
      round: async () => {
        await tick()
        return false
      },
      pollMs: deps.intervalMs ?? INTERVAL_MS,
      // The first round comes with the timer: the start only marks where activity begins.
      roundAtStart: false,
    },
    deps,
  )

  return {
    tick,
    async start() {
      applied = await lastEmailEvent()
      worker.start()
    },
    /** Takes no more rounds; waits for the round under way. */
    stop: worker.stop,
  }
}

export type MembershipTracker = ReturnType<typeof createMembershipTracker>
