import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { bucketStart, hoursOf, rangeOf, type RangeQuery } from './range.ts'

const NOW = Date.parse('2026-11-01T12:34:56Z')
const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()

/** The range as the times its first bucket starts and its last one ends. */
function span(query: RangeQuery) {
  const range = rangeOf(query, NOW)
  return [range.bucket, iso(bucketStart(range.bucket, range.first)), iso(bucketStart(range.bucket, range.last + 1)), range.last - range.first + 1]
}

describe('the buckets a query covers', () => {
  test.each([
    ['nothing: the last 30 days, today included', {}, ['day', '2026-10-03T00:00:00.000Z', '2026-11-02T00:00:00.000Z', 30]],
    ['bucket=hour alone: the last 24 hours, this one included', { bucket: 'hour' }, ['hour', '2026-10-31T13:00:00.000Z', '2026-11-01T13:00:00.000Z', 24]],
    ['days=7: the last 7 days', { days: 7 }, ['day', '2026-10-26T00:00:00.000Z', '2026-11-02T00:00:00.000Z', 7]],
    ['days=1 by the hour: 24 hours', { days: 1, bucket: 'hour' }, ['hour', '2026-10-31T13:00:00.000Z', '2026-11-01T13:00:00.000Z', 24]],
    ['a start and an end: from the bucket of one to the bucket of the other, both included', { startDate: at('2026-10-30T23:59:59Z'), endDate: at('2026-10-31T00:00:00Z') }, ['day', '2026-10-30T00:00:00.000Z', '2026-11-01T00:00:00.000Z', 2]],
    ['a start and an end in one hour: that hour', { bucket: 'hour', startDate: at('2026-10-30T10:05:00Z'), endDate: at('2026-10-30T10:55:00Z') }, ['hour', '2026-10-30T10:00:00.000Z', '2026-10-30T11:00:00.000Z', 1]],
    ['a start alone: to now', { startDate: at('2026-10-30T00:00:00Z') }, ['day', '2026-10-30T00:00:00.000Z', '2026-11-02T00:00:00.000Z', 3]],
    ['an end alone: the 30 days before it', { endDate: at('2026-01-30T05:00:00Z') }, ['day', '2026-01-01T00:00:00.000Z', '2026-01-31T00:00:00.000Z', 30]],
    ['an end in the future: zeros to come', { startDate: at('2026-11-01T00:00:00Z'), endDate: at('2026-11-03T00:00:00Z') }, ['day', '2026-11-01T00:00:00.000Z', '2026-11-04T00:00:00.000Z', 3]],
    ['31 days by the hour, the most', { bucket: 'hour', days: 31 }, ['hour', '2026-10-01T13:00:00.000Z', '2026-11-01T13:00:00.000Z', 744]],
    ['366 days by the day, the most', { days: 366 }, ['day', '2025-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z', 366]],
  ] as Array<[string, RangeQuery, Array<string | number>]>)('%s', (_, query, expected) => {
    expect(span(query)).toEqual(expected)
  })

  test('the hours a range reads: from the first hour of its first bucket to the last of its last', () => {
    expect(hoursOf({ bucket: 'day', first: 2, last: 3 })).toEqual({ first: 48, last: 95 })
    expect(hoursOf({ bucket: 'hour', first: 2, last: 3 })).toEqual({ first: 2, last: 3 })
  })
})

describe('what a query may not ask', () => {
  test.each([
    ['days beside a start', { days: 7, startDate: at('2026-10-01T00:00:00Z') }, 'days', 'cannot be given with startDate or endDate'],
    ['days beside an end', { days: 7, endDate: at('2026-10-01T00:00:00Z') }, 'days', 'cannot be given with startDate or endDate'],
    ['an end before the start', { startDate: at('2026-10-02T00:00:00Z'), endDate: at('2026-10-01T00:00:00Z') }, 'endDate', 'must not be before startDate'],
    ['a start after now without an end', { startDate: at('2026-11-02T00:00:00Z') }, 'startDate', 'must not be in the future when endDate is absent'],
    ['32 days by the hour', { bucket: 'hour', days: 32 }, 'days', 'the range holds at most 744 hours (31 days) with bucket=hour'],
    ['a range of 745 hours', { bucket: 'hour', startDate: at('2026-10-01T12:00:00Z'), endDate: at('2026-11-01T12:00:00Z') }, 'endDate', 'the range holds at most 744 hours (31 days) with bucket=hour'],
    ['a range of 367 days', { startDate: at('2025-10-31T00:00:00Z'), endDate: at('2026-11-01T00:00:00Z') }, 'endDate', 'the range holds at most 366 days with bucket=day'],
  ] as Array<[string, RangeQuery, string, string]>)('%s', (_, query, field, message) => {
    let thrown: unknown
    try {
      rangeOf(query, NOW)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(AppError)
    expect((thrown as AppError).details.errors).toEqual([{ field, message }])
  })
})
