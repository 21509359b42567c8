import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { getDomain } from '../domains/domains.service.ts'
import { rangeCounts, type EventCounts } from './counters.ts'
import { ratesOf } from './rates.ts'
import { BUCKET_HOURS, bucketStart, hoursOf, rangeOf, type Range, type RangeQuery } from './range.ts'

/*
 * What a project's mail did over a range, read from the sending counters (one row per sending
 * domain and hour), never from the email events: a month of a million events a day is a few
 * thousand rows.
 */

/** A range, and optionally one sending domain of the project (another project's is a 404). */
export interface AnalyticsQuery extends RangeQuery {
  domainId?: number
}

/** The counts the API shows for a bucket or a range. */
export type ShownCounts = {
  sent: number
  delivered: number
  deferred: number
  opened: number
  clicked: number
  bounced: number
  complained: number
}

const NONE: ShownCounts = { sent: 0, delivered: 0, deferred: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 }

/** A bounce is one, at an attempt or reported afterwards. */
const shown = (c: EventCounts): ShownCounts => ({
  sent: c.sent,
  delivered: c.delivered,
  deferred: c.deferred,
  opened: c.opened,
  clicked: c.clicked,
  bounced: c.bounced + c.reportedBounced,
  complained: c.complained,
})

const add = <T extends Record<string, number>>(sum: T, more: T): T => Object.fromEntries(Object.entries(sum).map(([key, n]) => [key, n + more[key]!])) as T

/** A day bucket is named by its date (2026-11-01), an hour bucket by when it starts (2026-11-01T13:00:00.000Z). */
const bucketName = (range: Range, index: number) => {
  const start = isoTime(bucketStart(range.bucket, index))
  return range.bucket === 'day' ? start.slice(0, 10) : start
}

async function countsOver(db: Db, projectId: number, query: AnalyticsQuery, now: number) {
  const range = rangeOf(query, now)
  if (query.domainId !== undefined) await getDomain(db, projectId, query.domainId)
  const rows = await rangeCounts(db, { projectId, domainId: query.domainId, ...hoursOf(range), bucketHours: BUCKET_HOURS[range.bucket] })
  const span = { startDate: isoTime(bucketStart(range.bucket, range.first)), endDate: isoTime(bucketStart(range.bucket, range.last + 1)) }
  return { range, rows, span }
}

/**
 * Every bucket of the range, those without mail as zeros, oldest first, and their totals:
 * useSend's `{result, totalCounts}`, with `deferred` beside its counts and the range it covers.
 */
export async function emailTimeSeries(db: Db, projectId: number, query: AnalyticsQuery, now: number) {
  const { range, rows, span } = await countsOver(db, projectId, query, now)
  const byBucket = new Map(rows.map((row) => [row.bucket, shown(row)]))
  const result: Array<ShownCounts & { date: string }> = []
  let totalCounts = NONE
  for (let index = range.first; index <= range.last; index++) {
    const counts = byBucket.get(index) ?? NONE
    result.push({ date: bucketName(range, index), ...counts })
    totalCounts = add(totalCounts, counts)
  }
  return { bucket: range.bucket, ...span, result, totalCounts }
}

/**
 * useSend's reputation metrics over the last `days` days (30 by default), with the rates as the
 * guardrails judge them: hard bounces in per cent of what was sent (delivered, or bounced at an
 * attempt), complaints in per cent of what was delivered.
 */
export async function reputationMetrics(db: Db, projectId: number, query: { days?: number; domainId?: number }, now: number) {
  const { rows, span } = await countsOver(db, projectId, { days: query.days ?? 30, domainId: query.domainId }, now)
  const counts = rows.reduce(
    (sum, row) => add(sum, { delivered: row.delivered, bounced: row.bounced, hardBounced: row.hardBounced, complained: row.complained }),
    { delivered: 0, bounced: 0, hardBounced: 0, complained: 0 },
  )
  const rates = ratesOf(counts)
  return {
    delivered: counts.delivered,
    hardBounced: counts.hardBounced,
    complained: counts.complained,
    bounceRate: rates.hardBounceRate,
    complaintRate: rates.complaintRate,
    sent: rates.sent,
    ...span,
  }
}
