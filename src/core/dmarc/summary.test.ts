import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { dayRange, summarize, type SourceDay } from './summary.ts'

const NOW = Date.parse('2024-05-31T15:00:00Z')

const failure = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, errors: error.details.errors }
    throw error
  }
  throw new Error('no error')
}

describe('dayRange', () => {
  test('defaults to the last 30 days, today included', () => {
    expect(dayRange({}, NOW)).toEqual({ from: '2024-05-02', to: '2024-05-31' })
    expect(dayRange({ from: '', to: '' }, NOW)).toEqual({ from: '2024-05-02', to: '2024-05-31' })
  })

  test('one bound given: the other follows', () => {
    expect(dayRange({ to: '2024-03-01' }, NOW)).toEqual({ from: '2024-02-01', to: '2024-03-01' }) // 2024 is a leap year
    expect(dayRange({ from: '2024-05-20' }, NOW)).toEqual({ from: '2024-05-20', to: '2024-05-31' })
    expect(dayRange({ from: '2024-06-10' }, NOW)).toEqual({ from: '2024-06-10', to: '2024-06-10' })
  })

  test('both given: as they are, one day or up to 366', () => {
    expect(dayRange({ from: '2024-05-20', to: '2024-05-20' }, NOW)).toEqual({ from: '2024-05-20', to: '2024-05-20' })
    expect(dayRange({ from: '2023-06-01', to: '2024-05-31' }, NOW)).toEqual({ from: '2023-06-01', to: '2024-05-31' })
  })

  test.each([
    [{ from: '20240520' }, 'from', 'must be a date as YYYY-MM-DD, such as 2024-05-31; got "20240520"'],
    [{ to: '2024-02-30' }, 'to', 'must be a date as YYYY-MM-DD, such as 2024-05-31; got "2024-02-30"'],
    [{ from: '2024-05-20T00:00:00Z' }, 'from', 'must be a date as YYYY-MM-DD, such as 2024-05-31; got "2024-05-20T00:00:00Z"'],
    [{ from: 'yesterday' }, 'from', 'must be a date as YYYY-MM-DD, such as 2024-05-31; got "yesterday"'],
    [{ from: '2024-05-21', to: '2024-05-20' }, 'from', 'must not be after to (2024-05-21 is after 2024-05-20)'],
    [{ from: '2023-01-01', to: '2024-05-31' }, 'to', 'the range may cover at most 366 days; 2023-01-01 to 2024-05-31 is 517'],
  ])('%j is refused with a 422 naming %s', (query, field, message) => {
    expect(failure(() => dayRange(query, NOW))).toEqual({ status: 422, errors: [{ field, message }] })
  })
})

const counts = (messages: number, pass: number) => ({
  messages,
  dmarcPass: pass,
  dkimAligned: pass,
  spfAligned: pass,
  dkimPass: pass,
  spfPass: pass,
  quarantined: 0,
  rejected: 0,
})
const row = (day: string, sourceIp: string, messages: number, pass: number): SourceDay => ({ day, sourceIp, ...counts(messages, pass) })
const domain = { id: 1, name: 'sender.example.com' }
const range = { from: '2024-05-01', to: '2024-05-31' }

describe('summarize', () => {
  const rows = [
    row('2024-05-20', '192.0.2.10', 40, 40),
    row('2024-05-21', '192.0.2.10', 10, 10),
    row('2024-05-20', '2001:db8:5::17', 2, 0),
    row('2024-05-21', '209.85.220.41', 6, 6),
    row('2024-05-21', '203.0.113.66', 4, 1),
  ]

  test("totals, days and sources; this server's addresses matched in any spelling", () => {
    const summary = summarize(domain, range, rows, [{ orgName: 'google.com', reports: 2, messages: 62 }], ['192.0.2.10', '2001:DB8:0:0:0:0:0:99'])
    expect(summary.serverIps).toEqual(['192.0.2.10', '2001:db8::99'])
    expect(summary.warning).toBeNull()
    expect(summary.reports).toEqual({ count: 2, reporters: [{ orgName: 'google.com', reports: 2, messages: 62 }] })
    expect(summary.totals).toEqual({ ...counts(62, 57), dmarcFail: 5, fromThisServer: 50, fromElsewhere: 12 })
    expect(summary.days).toEqual([
      { date: '2024-05-20', ...counts(42, 40) },
      { date: '2024-05-21', ...counts(20, 17) },
    ])
    expect(summary.sources.map((s) => [s.ip, s.thisServer, s.messages, s.firstDay, s.lastDay])).toEqual([
      ['192.0.2.10', true, 50, '2024-05-20', '2024-05-21'],
      ['209.85.220.41', false, 6, '2024-05-21', '2024-05-21'],
      ['203.0.113.66', false, 4, '2024-05-21', '2024-05-21'],
      ['2001:db8:5::17', false, 2, '2024-05-20', '2024-05-20'],
    ])
    expect(summary.sources.map((s) => s.flag)).toEqual([
      null,
      'not this server, yet its mail passes DMARC as sender.example.com: another service that sends for the domain?',
      'not this server; 3 of its 4 messages fail DMARC',
      'not this server, and its mail fails DMARC: someone else sends as sender.example.com (spoofing, or a service not set up for the domain)',
    ])
    expect([summary.flagged, summary.sourceCount]).toEqual([3, 4])
  })

  test("without this server's addresses, every source is flagged and the summary says why", () => {
    const summary = summarize(domain, range, rows, [], [])
    expect(summary.flagged).toBe(4)
    expect(summary.warning).toContain('MAILSTEAD_PUBLIC_IPS')
  })

  test('no reports: zeros, empty lists', () => {
    expect(summarize(domain, range, [], [], ['192.0.2.10'])).toMatchObject({
      totals: { messages: 0, dmarcFail: 0 },
      days: [],
      sources: [],
      flagged: 0,
      reports: { count: 0 },
    })
  })
})
