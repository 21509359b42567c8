import type { Counts, TimeSeries } from '../api/analytics.api.ts'
import type { CheckFinding, DomainSummary, QueueStats } from '../api/overview.api.ts'

/**
 * What the Overview makes of the API's answers: the ranges it offers and the query each sends,
 * the series it draws, bucket names in UTC (the API's buckets are UTC hours and days), the queue's
 * depth, each domain's health and the self-checks worth a warning.
 */

export type RangeId = '24h' | '7d' | '30d'

export interface RangeChoice {
  id: RangeId
  label: string
  /** GET /api/v1/analytics/email-time-series's query. */
  query: { bucket: 'hour' | 'day'; days: number }
}

export const RANGES: RangeChoice[] = [
  { id: '24h', label: 'Last 24 hours', query: { bucket: 'hour', days: 1 } },
  { id: '7d', label: 'Last 7 days', query: { bucket: 'day', days: 7 } },
  { id: '30d', label: 'Last 30 days', query: { bucket: 'day', days: 30 } },
]

export const rangeOf = (id: string): RangeChoice => RANGES.find((range) => range.id === id) ?? RANGES[0]!

export type SeriesKey = keyof Counts

export interface SeriesInfo {
  key: SeriesKey
  label: string
  /** The line's colour: a token of tokens.css, distinct and readable in both themes. */
  color: string
}

export const SERIES: SeriesInfo[] = [
  { key: 'sent', label: 'Sent', color: '--series-1' },
  { key: 'delivered', label: 'Delivered', color: '--series-2' },
  { key: 'deferred', label: 'Deferred', color: '--series-3' },
  { key: 'bounced', label: 'Bounced', color: '--series-4' },
  { key: 'complained', label: 'Complained', color: '--series-5' },
  { key: 'opened', label: 'Opened', color: '--series-6' },
  { key: 'clicked', label: 'Clicked', color: '--series-7' },
]

export type RateKey = 'delivery' | 'bounce' | 'complaint'

export interface RateInfo {
  key: RateKey
  label: string
  color: string
  /** The rate of one bucket or of the range, in percent, or null with nothing to divide by. */
  of: (counts: Counts) => number | null
}

const percent = (part: number, whole: number) => (whole > 0 ? (part / whole) * 100 : null)

/**
 * The rates a sender watches: delivered and bounced of what was sent, and complaints of what was
 * delivered (as the mailbox providers count them).
 */
export const RATES: RateInfo[] = [
  { key: 'delivery', label: 'Delivery rate', color: '--series-2', of: (c) => percent(c.delivered, c.sent) },
  { key: 'bounce', label: 'Bounce rate', color: '--series-4', of: (c) => percent(c.bounced, c.sent) },
  { key: 'complaint', label: 'Complaint rate', color: '--series-5', of: (c) => percent(c.complained, c.delivered) },
]

/** Gmail's and Yahoo's bulk-sender rules: keep complaints under 0.3 % of delivered mail. */
export const COMPLAINT_LIMIT = 0.3

/** A rate as a person reads it: "98.2 %", "0.05 %", or "–" when nothing was sent. */
export function showRate(rate: number | null): string {
  if (rate === null) return '–'
  if (rate === 0 || rate >= 10) return `${rate.toFixed(rate % 1 === 0 ? 0 : 1)} %`
  return `${rate.toFixed(rate < 1 ? 2 : 1)} %`
}

/** uPlot's data for the rates chart: bounce and complaint rates per bucket (0 where nothing was sent). */
export function rateData(series: TimeSeries): [number[], ...number[][]] {
  const shown = RATES.filter((rate) => rate.key !== 'delivery')
  return [series.result.map((row) => bucketTime(row.date) / 1000), ...shown.map((rate) => series.result.map((row) => rate.of(row) ?? 0))]
}

/** What the rates chart's accessible name says. */
export function rateSummary(series: TimeSeries, range: RangeChoice): string {
  const rates = RATES.map((rate) => `${rate.label.toLowerCase()} ${showRate(rate.of(series.totalCounts))}`).join(', ')
  return `Line chart of bounce and complaint rates by ${series.bucket}, ${range.label.toLowerCase()}: ${rates}; the complaint limit is ${COMPLAINT_LIMIT} %`
}

/** When a bucket starts, in ms: a day's date is its UTC midnight. */
export const bucketTime = (date: string) => Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date)

/** uPlot's data: the buckets' starts in seconds, then one array per series, in SERIES's order. */
export function chartData(series: TimeSeries): [number[], ...number[][]] {
  return [series.result.map((row) => bucketTime(row.date) / 1000), ...SERIES.map(({ key }) => series.result.map((row) => row[key]))]
}

const formats = new Map<string, Intl.DateTimeFormat>()
function format(bucket: 'hour' | 'day', locale?: string) {
  const key = `${bucket}|${locale ?? ''}`
  let found = formats.get(key)
  if (!found) {
    found = new Intl.DateTimeFormat(
      locale,
      bucket === 'hour' ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' } : { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' },
    )
    formats.set(key, found)
  }
  return found
}

/** A bucket's name in the table, in UTC like the buckets: "1 Nov, 13:00" or "1 Nov 2026". */
export const bucketName = (date: string, bucket: 'hour' | 'day', locale?: string) => format(bucket, locale).format(new Date(bucketTime(date)))

/** What the chart's accessible name says: what it draws, over which range, and the totals. */
export function chartSummary(series: TimeSeries, range: RangeChoice): string {
  const totals = SERIES.map(({ key, label }) => `${label.toLowerCase()} ${series.totalCounts[key]}`).join(', ')
  return `Line chart of mail by ${series.bucket}, ${range.label.toLowerCase()}: ${totals}`
}

/** Deliveries waiting in the queue, in every pending state. */
export const queueDepth = (stats: QueueStats) => Object.values(stats.byState).reduce((sum, n) => sum + n, 0)

export interface DomainHealth {
  verified: boolean
  /** Words for its status. */
  state: string
  /** What the last check found wrong, one line each. */
  problems: string[]
}

const STATES: Record<DomainSummary['status'], string> = {
  SUCCESS: 'Verified',
  PENDING: 'Waiting for DNS',
  NOT_STARTED: 'Not checked yet',
  FAILED: 'Failed',
  TEMPORARY_FAILURE: 'Could not be checked',
}

export function domainHealth(domain: DomainSummary): DomainHealth {
  const problems = domain.dnsRecords.filter((record) => record.problem && record.status !== 'SUCCESS').map((record) => `${record.type} ${record.name}${record.recommended ? ' (recommended)' : ''}: ${record.problem}`)
  if (domain.errorMessage) problems.unshift(domain.errorMessage)
  return { verified: domain.status === 'SUCCESS', state: STATES[domain.status] ?? domain.status, problems }
}

/** The self-checks that found something wrong or could not check; oks and skips say nothing. */
export const checkWarnings = (findings: CheckFinding[]) => findings.filter((finding) => finding.status === 'warning' || finding.status === 'failed' || finding.status === 'unchecked')
