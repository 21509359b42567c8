import { sql } from 'kysely'
import { prepared } from '../../db/prepared.ts'
import type { Db } from '../../db/schema.ts'

export const HOUR_MS = 3_600_000

/** The counters' bucket of a time: hours since the epoch, UTC. */
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS)

/** The first hour of a window of `hours` that ends with the hour of `now`: that hour and the `hours - 1` before it. */
export const windowStart = (now: number, hours: number) => hourOf(now) - hours + 1

/** What one project sent from one domain over a window. */
export interface Counts {
  delivered: number
  /** Bounced at an attempt, hard or soft. */
  bounced: number
  /** Hard bounces, at an attempt or reported afterwards. */
  hardBounced: number
  complained: number
}

export const NO_COUNTS: Counts = { delivered: 0, bounced: 0, hardBounced: 0, complained: 0 }

interface Increment {
  emailId: string
  hour: number
  delivered: number
  bounced: number
  hardBounced: number
  complained: number
}

/**
 * Adds to the hour's row of the email's project and sending domain, creating it: one statement,
 * built once. Mail without a sending domain (its domain was removed) is not counted.
 */
const increment = prepared((db, p: Increment) =>
  db
    .insertInto('sending_counters')
    .columns(['project_id', 'domain_id', 'hour', 'delivered', 'bounced', 'hard_bounced', 'complained'])
    .expression(
      db
        .selectFrom('emails')
        .select((eb) => [
          'emails.project_id',
          'emails.domain_id',
          eb.val(p.hour).as('hour'),
          eb.val(p.delivered).as('delivered'),
          eb.val(p.bounced).as('bounced'),
          eb.val(p.hardBounced).as('hard_bounced'),
          eb.val(p.complained).as('complained'),
        ])
        .where('emails.id', '=', p.emailId)
        // Also what lets SQLite read ON CONFLICT as the upsert's, not as a join's ON.
        .where('emails.domain_id', 'is not', null),
    )
    // The table's name says which `delivered` is meant: PostgreSQL finds a bare name ambiguous beside `excluded`.
    .onConflict((oc) =>
      oc.columns(['project_id', 'domain_id', 'hour']).doUpdateSet({
        delivered: sql`sending_counters.delivered + excluded.delivered`,
        bounced: sql`sending_counters.bounced + excluded.bounced`,
        hard_bounced: sql`sending_counters.hard_bounced + excluded.hard_bounced`,
        complained: sql`sending_counters.complained + excluded.complained`,
      }),
    ),
)

/** An attempt's outcome as the counters see it: a settlement of the delivery queue. */
export interface CountedOutcome {
  kind: string
  hard?: boolean
}

/**
 * Counts an attempt's outcome in the caller's transaction (the one that settles it): delivered,
 * or bounced (hard or soft). Deferrals, failures and suppressions are not mail that was sent, and
 * count nothing.
 */
export async function countOutcome(db: Db, delivery: { email_id: string }, outcome: CountedOutcome, now: number): Promise<void> {
  if (outcome.kind !== 'delivered' && outcome.kind !== 'bounced') return
  const bounced = outcome.kind === 'bounced' ? 1 : 0
  await increment(db, {
    emailId: delivery.email_id,
    hour: hourOf(now),
    delivered: 1 - bounced,
    bounced,
    hardBounced: bounced && outcome.hard ? 1 : 0,
    complained: 0,
  })
}

/** Counts what a report said afterwards, in the caller's transaction: a hard bounce or a complaint. */
export async function countFeedback(db: Db, delivery: { email_id: string }, kind: 'hard_bounce' | 'complaint', now: number): Promise<void> {
  await increment(db, {
    emailId: delivery.email_id,
    hour: hourOf(now),
    delivered: 0,
    bounced: 0,
    hardBounced: kind === 'hard_bounce' ? 1 : 0,
    complained: kind === 'complaint' ? 1 : 0,
  })
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

/** Deletes the rows of hours before `beforeHour`; answers how many. */
export async function pruneCounters(db: Db, beforeHour: number): Promise<number> {
  const result = await db.deleteFrom('sending_counters').where('hour', '<', beforeHour).executeTakeFirst()
  return Number(result.numDeletedRows ?? 0)
}
