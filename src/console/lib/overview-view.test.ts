import { describe, expect, test } from 'bun:test'
import type { TimeSeries } from '../api/analytics.api.ts'
import type { DomainSummary } from '../api/overview.api.ts'
import { bucketName, bucketTime, chartData, chartSummary, checkWarnings, COMPLAINT_LIMIT, domainHealth, queueDepth, rangeOf, RANGES, RATES, SERIES, showRate } from './overview-view.ts'

const zero = { sent: 0, delivered: 0, deferred: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 }

const hourly: TimeSeries = {
  bucket: 'hour',
  startDate: '2026-11-01T12:00:00.000Z',
  endDate: '2026-11-01T14:00:00.000Z',
  result: [
    { date: '2026-11-01T12:00:00.000Z', ...zero, sent: 5, delivered: 3, bounced: 1, deferred: 1 },
    { date: '2026-11-01T13:00:00.000Z', ...zero, opened: 2, clicked: 1, complained: 1 },
  ],
  totalCounts: { sent: 5, delivered: 3, deferred: 1, opened: 2, clicked: 1, bounced: 1, complained: 1 },
}

describe('the ranges', () => {
  test('each asks the API for its buckets: 24 hours by the hour, 7 and 30 days by the day', () => {
    expect(RANGES.map((r) => [r.label, r.query])).toEqual([
      ['Last 24 hours', { bucket: 'hour', days: 1 }],
      ['Last 7 days', { bucket: 'day', days: 7 }],
      ['Last 30 days', { bucket: 'day', days: 30 }],
    ])
    expect(rangeOf('7d').id).toBe('7d')
    expect(rangeOf('nonsense').id).toBe('24h')
  })
})

describe('the chart', () => {
  test("draws each series in the API's bucket order, x in seconds", () => {
    const [xs, ...ys] = chartData(hourly)
    expect(xs).toEqual([Date.parse('2026-11-01T12:00:00Z') / 1000, Date.parse('2026-11-01T13:00:00Z') / 1000])
    expect(ys).toHaveLength(SERIES.length)
    const of = (key: string) => ys[SERIES.findIndex((s) => s.key === key)]
    expect(of('sent')).toEqual([5, 0])
    expect(of('opened')).toEqual([0, 2])
    expect(of('complained')).toEqual([0, 1])
  })

  test('a day bucket starts at its UTC midnight, and is named in UTC', () => {
    expect(bucketTime('2026-11-01')).toBe(Date.parse('2026-11-01T00:00:00Z'))
    expect(bucketName('2026-11-01', 'day', 'en-GB')).toBe('1 Nov 2026')
    expect(bucketName('2026-11-01T13:00:00.000Z', 'hour', 'en-GB')).toBe('1 Nov, 13:00')
  })

  test('its accessible name says what it draws and the totals', () => {
    expect(chartSummary(hourly, rangeOf('24h'))).toBe('Line chart of mail by hour, last 24 hours: sent 5, delivered 3, deferred 1, bounced 1, complained 1, opened 2, clicked 1')
  })
})

describe('the queue, the domains and the self-checks', () => {
  test('the depth counts every pending state', () => {
    expect(queueDepth({ byState: { queued: 2, deferred: 3 }, byDomain: [] })).toBe(5)
    expect(queueDepth({ byState: {}, byDomain: [] })).toBe(0)
  })

  const domain = (changes: Partial<DomainSummary>): DomainSummary => ({ id: 1, name: 'example.com', status: 'SUCCESS', dnsRecords: [], errorMessage: null, lastCheckedTime: null, ...changes })

  test("a domain's health: verified or not, and each record's problem", () => {
    expect(domainHealth(domain({}))).toEqual({ verified: true, state: 'Verified', problems: [] })
    const failed = domainHealth(
      domain({
        status: 'FAILED',
        errorMessage: 'DNS did not answer',
        dnsRecords: [
          { type: 'TXT', name: 'ms._domainkey', status: 'FAILED', recommended: false, problem: 'no record' },
          { type: 'TXT', name: '_dmarc', status: 'FAILED', recommended: true, problem: 'p=none' },
          { type: 'MX', name: 'bounce', status: 'SUCCESS', recommended: false, problem: null },
        ],
      }),
    )
    expect(failed).toEqual({ verified: false, state: 'Failed', problems: ['DNS did not answer', 'TXT ms._domainkey: no record', 'TXT _dmarc (recommended): p=none'] })
  })

  test('the self-checks warn of what failed, warned or could not be checked', () => {
    const finding = (status: 'ok' | 'warning' | 'failed' | 'unchecked' | 'skipped') => ({ check: 'ptr', subject: '192.0.2.1', status, message: status })
    expect(checkWarnings(['ok', 'warning', 'failed', 'unchecked', 'skipped'].map((s) => finding(s as never))).map((f) => f.status)).toEqual(['warning', 'failed', 'unchecked'])
  })
})

describe('rates beside the counts', () => {
  const counts = { sent: 200, delivered: 190, deferred: 4, bounced: 6, complained: 1, opened: 0, clicked: 0 }
  const rate = (key: string) => RATES.find((r) => r.key === key)!.of(counts)
  test('delivered and bounced of what was sent, complaints of what was delivered', () => {
    expect(rate('delivery')).toBe(95)
    expect(rate('bounce')).toBe(3)
    expect(rate('complaint')).toBeCloseTo(0.526, 3)
  })
  test('nothing sent: no rate, shown as a dash; small rates keep two decimals', () => {
    expect(RATES[0]!.of({ ...counts, sent: 0 })).toBe(null)
    expect(showRate(null)).toBe('–')
    expect(showRate(95)).toBe('95 %')
    expect(showRate(0.526)).toBe('0.53 %')
    expect(showRate(3)).toBe('3.0 %')
    expect(COMPLAINT_LIMIT).toBe(0.3)
  })
})
