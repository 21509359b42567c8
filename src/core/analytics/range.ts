import { invalid } from '../../lib/errors.ts'
import { HOUR_MS } from './counters.ts'

export type Bucket = 'hour' | 'day'

export const BUCKET_HOURS = { hour: 1, day: 24 } as const satisfies Record<Bucket, number>

/**
 * The most buckets a range holds: 31 days by the hour, 366 by the day. The counters are kept
 * longer (KEEP_HOURS), so any range allowed has its rows.
 */
export const MAX_BUCKETS = { hour: 31 * 24, day: 366 } as const satisfies Record<Bucket, number>

/** Buckets a range holds when neither `days` nor `startDate` says: the last 24 hours, or the last 30 days. */
const DEFAULT_BUCKETS = { hour: 24, day: 30 } as const satisfies Record<Bucket, number>

/** A range as asked for: times in ms since the epoch, each optional. */
export interface RangeQuery {
  bucket?: Bucket
  /** The last `days` days, today (or this hour's day) included. */
  days?: number
  startDate?: number
  endDate?: number
}

/** Whole buckets, UTC: the `first` and `last` (included) as counts of buckets since the epoch. */
export interface Range {
  bucket: Bucket
  first: number
  last: number
}

/**
 * The buckets a query covers: from the one holding `startDate` to the one holding `endDate`
 * (now when absent), both included. `days` instead names the last days, today included: by the
 * hour, that many times 24 hours, this one included. Without either, the last 24 hours or 30
 * days. Refuses (422, naming the field) `days` beside a date, an end before the start, and a
 * range longer than MAX_BUCKETS.
 */
export function rangeOf(query: RangeQuery, now: number): Range {
  const bucket = query.bucket ?? 'day'
  const size = BUCKET_HOURS[bucket] * HOUR_MS
  if (query.days !== undefined && (query.startDate !== undefined || query.endDate !== undefined)) {
    throw invalid('days', 'cannot be given with startDate or endDate')
  }
  const end = query.endDate ?? now
  if (query.startDate !== undefined && query.startDate > end) {
    throw query.endDate === undefined ? invalid('startDate', 'must not be in the future when endDate is absent') : invalid('endDate', 'must not be before startDate')
  }
  const last = Math.floor(end / size)
  const count =
    query.startDate !== undefined ? last - Math.floor(query.startDate / size) + 1 : query.days !== undefined ? (query.days * 24) / BUCKET_HOURS[bucket] : DEFAULT_BUCKETS[bucket]
  if (count > MAX_BUCKETS[bucket]) {
    const field = query.days !== undefined ? 'days' : 'endDate'
    const days = bucket === 'hour' ? ` (${MAX_BUCKETS.hour / 24} days)` : ''
    throw invalid(field, `the range holds at most ${MAX_BUCKETS[bucket]} ${bucket}s${days} with bucket=${bucket}`)
  }
  return { bucket, first: last - count + 1, last }
}

/** The hours a range covers, first and last included: what the counters are read by. */
export const hoursOf = (range: Range) => ({ first: range.first * BUCKET_HOURS[range.bucket], last: (range.last + 1) * BUCKET_HOURS[range.bucket] - 1 })

/** When a bucket starts, in ms since the epoch. */
export const bucketStart = (bucket: Bucket, index: number) => index * BUCKET_HOURS[bucket] * HOUR_MS
