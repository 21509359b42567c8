import { describe, expect, test } from 'bun:test'
import { showTime } from './time.ts'

describe('showTime', () => {
  test("shows an API time in the reader's zone, with the UTC instant for the title", () => {
    expect(showTime('2026-11-24T06:33:21.456Z', { locale: 'en-GB', timeZone: 'Europe/Paris' })).toEqual({
      dateTime: '2026-11-24T06:33:21.456Z',
      local: '24 Nov 2026, 07:33:21',
      utc: '2026-11-24 06:33:21 UTC',
    })
  })

  test('crosses the date line as the zone does', () => {
    expect(showTime('2026-11-24T23:30:00Z', { locale: 'en-US', timeZone: 'Asia/Tokyo' })?.local).toBe('Nov 25, 2026, 08:30:00')
    expect(showTime('2026-11-24T02:00:00Z', { locale: 'en-US', timeZone: 'America/Los_Angeles' })?.local).toBe('Nov 23, 2026, 18:00:00')
  })

  test('takes epoch milliseconds too', () => {
    expect(showTime(Date.UTC(2026, 0, 2, 3, 4, 5), { locale: 'en-GB', timeZone: 'UTC' })?.utc).toBe('2026-01-02 03:04:05 UTC')
  })

  test('is undefined for no time or a value that is not one', () => {
    for (const value of [null, undefined, '', 'yesterday']) expect(showTime(value)).toBeUndefined()
  })
})
