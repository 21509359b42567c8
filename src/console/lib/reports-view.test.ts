import { describe, expect, test } from 'bun:test'
import { actionBadge, checkOf, dispositionOf, dmarcRecordOf, effectLabel, kindLabel, periodStart, rateOf, sourceStanding } from './reports-view.ts'

describe('the DMARC summary as the page says it', () => {
  test('a period of days ends today (UTC): 7 days from the 20th start on the 14th', () => {
    const now = Date.UTC(2024, 4, 20, 23, 30)
    expect(periodStart(7, now)).toBe('2024-05-14')
    expect(periodStart(30, now)).toBe('2024-04-21')
    expect(periodStart(1, now)).toBe('2024-05-20')
  })

  test('rates of a whole, and none of nothing', () => {
    expect(rateOf(12, 15)).toBe('80 %')
    expect(rateOf(3, 15)).toBe('20 %')
    expect(rateOf(1, 3)).toBe('33.3 %')
    expect(rateOf(0, 0)).toBe('–')
  })

  test('a source is this server, another that passes, or another that fails', () => {
    expect(sourceStanding({ thisServer: true, dmarcPass: 0, messages: 4 }).label).toBe('This server')
    expect(sourceStanding({ thisServer: false, dmarcPass: 2, messages: 2 })).toEqual({ label: 'Not this server, passes', tone: 'warn' })
    expect(sourceStanding({ thisServer: false, dmarcPass: 1, messages: 3 })).toEqual({ label: 'Not this server, fails', tone: 'bad' })
  })

  test('what receivers did, and the checks', () => {
    expect(dispositionOf({ quarantined: 0, rejected: 0, messages: 3 })).toBe('None (delivered)')
    expect(dispositionOf({ quarantined: 3, rejected: 1, messages: 4 })).toBe('3 quarantined, 1 rejected')
    expect(checkOf(10, 10, 10)).toBe('All pass, aligned')
    expect(checkOf(0, 0, 3)).toBe('0 pass, 0 aligned')
  })

  test("the domain's DMARC record is found among its records", () => {
    const records = [
      { type: 'MX', name: 'mst.a.example', value: '10 mx' },
      { type: 'TXT', name: '_dmarc.a.example', value: 'v=DMARC1; p=none; rua=mailto:dmarc@mst.a.example' },
    ]
    expect(dmarcRecordOf(records)?.value).toContain('rua=mailto:dmarc@mst.a.example')
    expect(dmarcRecordOf(records.slice(0, 1))).toBeUndefined()
  })
})

describe('what a received report did, in words', () => {
  test('kinds and effects', () => {
    expect(kindLabel('dsn')).toBe('Bounce')
    expect(kindLabel('arf')).toBe('Complaint')
    expect(kindLabel('weird')).toBe('Other')
    expect(effectLabel('hard-bounce')).toBe('Hard bounce')
    expect(effectLabel(null)).toBe('Nothing to act on')
  })

  test('the badge of what was done', () => {
    expect(actionBadge({ action: 'suppressed', result: 'applied' })).toEqual({ label: 'Suppressed', tone: 'bad' })
    expect(actionBadge({ action: 'recorded', result: 'applied' }).label).toBe('Recorded')
    expect(actionBadge({ action: 'none', result: 'duplicate' }).label).toBe('Already done')
    expect(actionBadge({ action: 'none', result: 'untrusted' }).label).toBe('Ignored, not trusted')
    expect(actionBadge({ action: 'none', result: 'ignored' }).label).toBe('Ignored')
  })
})
