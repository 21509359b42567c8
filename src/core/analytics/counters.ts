import { sql } from 'kysely'
import { prepared } from '../../db/prepared.ts'
import type { Db, EmailStatus } from '../../db/schema.ts'
import { emailRows } from '../emails/email-queries.ts'
import { hasSandboxDelivery } from '../queue/index.ts'

/*
 * The sending counters (`sending_counters`, written only here): per project, sending domain and
 * hour, how many of each kind of email event were recorded, moved in the transaction that records
 * them (src/core/reactions.ts). The guardrails sum a window of them, analytics a range by hour or
 * by day: either reads one row per domain and hour, never the email events.
 *
 * A sandbox project's mail has no sending domain: it is counted in `sandbox_counters` (also
 * written only here), per project and hour. Analytics adds those rows to a project's range; the
 * guardrails never read them, so simulated bounces and complaints cannot pause anything
 * (migrations/0035_sandbox_counters.ts says why a table of its own).
 */

export const HOUR_MS = 3_600_000

/** The counters' bucket of a time: hours since the epoch, UTC. */
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS)

/** The first hour of a window of `hours` that ends with the hour of `now`: that hour and the `hours - 1` before it. */
export const windowStart = (now: number, hours: number) => hourOf(now) - hours + 1

/** Rows are kept this long, about 13 months: a year of analytics by day, and any guardrail window. */
export const KEEP_HOURS = 400 * 24

/** What one project sent from one domain over a window, as the guardrails judge it. */
export interface Counts {
  delivered: number
  /** Bounced at an attempt, hard or soft. */
  bounced: number
  /** Hard bounces, at an attempt or reported afterwards. */
  hardBounced: number
  complained: number
}

export const NO_COUNTS: Counts = { delivered: 0, bounced: 0, hardBounced: 0, complained: 0 }

/** The counters, by their names here and their columns. */
const COLUMNS = {
  sent: 'sent',
  delivered: 'delivered',
  deferred: 'deferred',
  bounced: 'bounced',
  reportedBounced: 'reported_bounced',
  hardBounced: 'hard_bounced',
  complained: 'complained',
  opened: 'opened',
  clicked: 'clicked',
} as const

type Counter = keyof typeof COLUMNS

/** What events add to the counters; a counter left out adds nothing. */
export type Tally = Partial<Record<Counter, number>>

/** Every counter of a range: the sums of its rows. */
export type EventCounts = Record<Counter, number>

/**
 * What an event adds by its status alone: an attempt's outcome (SENT, DELIVERED, a deferral or a
 * bounce, hard or not) or an engagement, each time. A report's bounce or complaint says what it
 * adds itself (src/core/emails/feedback.ts): only its path knows whether the recipient already had
 * one. Queued, scheduled, cancelled, failed and suppressed mail count nothing.
 */
function tallyOf(status: EmailStatus, data: Record<string, unknown> | null): Tally | undefined {
  switch (status) {
    case 'SENT':
      return { sent: 1 }
    case 'DELIVERED':
      return { delivered: 1 }
    case 'DELIVERY_DELAYED':
      return { deferred: 1 }
    case 'BOUNCED':
      return { bounced: 1, hardBounced: data?.hard === true ? 1 : 0 }
    case 'COMPLAINED':
      return { complained: 1 }
    case 'OPENED':
      return { opened: 1 }
    case 'CLICKED':
      return { clicked: 1 }
    default:
      return undefined
  }
}

type Increment = { emailId: string; hour: number } & EventCounts

/**
 * Adds to the hour's row of the email's project and sending domain, creating it: one statement,
 * built once, answering the row when there was one. Mail without a sending domain adds nothing
 * here: a sandbox's is counted by incrementSandbox.
 */
const increment = prepared((db, p: Increment) =>
  db
    .insertInto('sending_counters')
    .columns(['project_id', 'domain_id', 'hour', ...Object.values(COLUMNS)])
    .expression(
      db
        .selectFrom(emailRows(db).as('emails'))
        .select((eb) => [
          'emails.project_id',
          'emails.domain_id',
          eb.val(p.hour).as('hour'),
          ...Object.entries(COLUMNS).map(([counter, column]) => eb.val(p[counter as Counter]).as(column)),
        ])
        .where('emails.id', '=', p.emailId)
        // Also what lets SQLite read ON CONFLICT as the upsert's, not as a join's ON.
        .where('emails.domain_id', 'is not', null),
    )
    .onConflict((oc) =>
      // The stored row's columns named by their table: bare, PostgreSQL finds them ambiguous with excluded's.
      oc.columns(['project_id', 'domain_id', 'hour']).doUpdateSet(
        Object.fromEntries(Object.values(COLUMNS).map((column) => [column, sql`${sql.ref(`sending_counters.${column}`)} + ${sql.ref(`excluded.${column}`)}`])),
      ),
    )
    .returning('hour'),
)

/**
 * Adds to the hour's row of a sandbox project's email, creating it. Sandbox mail is mail without a
 * sending domain whose delivery was simulated (the flag a delivery keeps from when it was queued);
 * a real project's mail whose domain was removed has none, and is not counted.
 */
const incrementSandbox = prepared((db, p: Increment) =>
  db
    .insertInto('sandbox_counters')
    .columns(['project_id', 'hour', ...Object.values(COLUMNS)])
    .expression(
      db
        .selectFrom(emailRows(db).as('emails'))
        .select((eb) => [
          'emails.project_id',
          eb.val(p.hour).as('hour'),
          ...Object.entries(COLUMNS).map(([counter, column]) => eb.val(p[counter as Counter]).as(column)),
        ])
        .where('emails.id', '=', p.emailId)
        .where('emails.domain_id', 'is', null)
        .where((eb) => hasSandboxDelivery(eb, 'emails.id')),
    )
    .onConflict((oc) =>
      oc.columns(['project_id', 'hour']).doUpdateSet(
        Object.fromEntries(Object.values(COLUMNS).map((column) => [column, sql`${sql.ref(`sandbox_counters.${column}`)} + ${sql.ref(`excluded.${column}`)}`])),
      ),
    ),
)

const NOTHING: EventCounts = { sent: 0, delivered: 0, deferred: 0, bounced: 0, reportedBounced: 0, hardBounced: 0, complained: 0, opened: 0, clicked: 0 }

/** An event as the counters see it: its status and data, when, and what it adds when its status does not say. */
export interface CountedEvent {
  status: EmailStatus
  data: Record<string, unknown> | null
  at: number
  counts?: Tally
}

/**
 * Counts one email's new events in the caller's transaction (the one that records them): one
 * statement per hour they fall in (SENT and DELIVERED of one attempt share it), none when they
 * add nothing.
 */
export async function countEmailEvents(db: Db, emailId: string, events: readonly CountedEvent[]): Promise<void> {
  const hours = new Map<number, EventCounts>()
  for (const event of events) {
    const tally = event.counts ?? tallyOf(event.status, event.data)
    if (!tally) continue
    const hour = hourOf(event.at)
    const sums = hours.get(hour) ?? { ...NOTHING }
    for (const [counter, n] of Object.entries(tally)) sums[counter as Counter] += n
    hours.set(hour, sums)
  }
  for (const [hour, sums] of hours) {
    if (!Object.values(sums).some((n) => n !== 0)) continue
    // A real domain's mail, the most of it, costs one statement; only mail without a domain a second.
    const counted = await increment(db, { emailId, hour, ...sums })
    if (counted.length === 0) await incrementSandbox(db, { emailId, hour, ...sums })
  }
}

/** The window's totals: sums of the hours' rows (0 when there are none). */
const SUMS = [
  sql<number>`coalesce(sum(delivered), 0)`.as('delivered'),
  sql<number>`coalesce(sum(bounced), 0)`.as('bounced'),
  sql<number>`coalesce(sum(hard_bounced), 0)`.as('hardBounced'),
  sql<number>`coalesce(sum(complained), 0)`.as('complained'),
] as const

const toCounts = (row: Counts): Counts => ({
  delivered: Number(row.delivered),
  bounced: Number(row.bounced),
  hardBounced: Number(row.hardBounced),
  complained: Number(row.complained),
})

const pairSums = prepared((db, p: { projectId: number; domainId: number; from: number }) =>
  db
    .selectFrom('sending_counters')
    .select(SUMS)
    .where('project_id', '=', p.projectId)
    .where('domain_id', '=', p.domainId)
    .where('hour', '>=', p.from),
)

/** What a project sent from a domain over the window of `hours` that ends now: its rows summed by the primary key. */
export async function windowCounts(db: Db, projectId: number, domainId: number, now: number, hours: number): Promise<Counts> {
  const [row] = await pairSums(db, { projectId, domainId, from: windowStart(now, hours) })
  return row ? toCounts(row) : NO_COUNTS
}

/** Every project and sending domain with outcomes in the window, with its counts. */
export async function allWindowCounts(db: Db, now: number, hours: number): Promise<Array<Counts & { projectId: number; domainId: number }>> {
  const rows = await db
    .selectFrom('sending_counters')
    .select(['project_id', 'domain_id', ...SUMS])
    .where('hour', '>=', windowStart(now, hours))
    .groupBy(['project_id', 'domain_id'])
    .execute()
  return rows.map((row) => ({ projectId: row.project_id, domainId: row.domain_id, ...toCounts(row) }))
}

/** What a range of hours sums to, one bucket at a time. */
export interface BucketCounts extends EventCounts {
  /** The bucket: hours since the epoch divided by its length, rounded down. */
  bucket: number
}

type RangeOf = { projectId: number; domainId?: number; first: number; last: number; bucketHours: 1 | 24 }

/** One table's rows of the range, summed by bucket. Both tables have project_id and hour; only sending_counters a domain. */
async function bucketsOf(db: Db, table: 'sending_counters' | 'sandbox_counters', range: RangeOf): Promise<BucketCounts[]> {
  // A literal, so that PostgreSQL sees the grouped expression and the selected one as the same.
  const bucket = sql<number>`hour / ${sql.lit(range.bucketHours)}`
  const rows = await db
    .selectFrom(table as 'sandbox_counters')
    .select([bucket.as('bucket'), ...Object.entries(COLUMNS).map(([counter, column]) => sql<number>`sum(${sql.ref(column)})`.as(counter))])
    .where('project_id', '=', range.projectId)
    .$if(range.domainId !== undefined, (qb) => qb.where(sql.ref('domain_id'), '=', range.domainId!))
    .where('hour', '>=', range.first)
    .where('hour', '<=', range.last)
    .groupBy(bucket)
    .orderBy(bucket)
    .execute()
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])) as unknown as BucketCounts)
}

/**
 * A project's counters from hour `first` to hour `last` (both included), of one sending domain
 * or all, summed by buckets of `bucketHours` (1 or 24, whole hours or days since the epoch).
 * All of a project's is its domains' and its sandbox mail's, added bucket by bucket; one domain's
 * has no sandbox mail. Buckets without rows are left out.
 */
export async function rangeCounts(db: Db, range: RangeOf): Promise<BucketCounts[]> {
  const domains = await bucketsOf(db, 'sending_counters', range)
  if (range.domainId !== undefined) return domains
  const sandbox = await bucketsOf(db, 'sandbox_counters', range)
  if (sandbox.length === 0) return domains
  const byBucket = new Map(domains.map((row) => [row.bucket, row]))
  for (const row of sandbox) {
    const sum = byBucket.get(row.bucket)
    byBucket.set(row.bucket, sum ? addCounts(sum, row) : row)
  }
  return [...byBucket.values()].sort((a, b) => a.bucket - b.bucket)
}

const addCounts = (a: BucketCounts, b: BucketCounts): BucketCounts => {
  const sum = { ...a }
  for (const counter of Object.keys(COLUMNS) as Counter[]) sum[counter] += b[counter]
  return sum
}

/** Deletes the rows of hours before `beforeHour`, the domains' and the sandboxes'; answers how many. */
export async function pruneCounters(db: Db, beforeHour: number): Promise<number> {
  let deleted = 0
  for (const table of ['sending_counters', 'sandbox_counters'] as const) {
    const result = await db.deleteFrom(table).where('hour', '<', beforeHour).executeTakeFirst()
    deleted += Number(result.numDeletedRows ?? 0)
  }
  return deleted
}
