import { describe, expect, test } from 'bun:test'
import { recordsFor, reportDay, type DmarcRecord, type DmarcReport } from './report.ts'

const row = (headerFrom: string, count = 1): DmarcRecord => ({
  sourceIp: '192.0.2.10',
  count,
  disposition: 'none',
  dkimAligned: true,
  spfAligned: true,
  dkimResult: 'pass',
  spfResult: 'pass',
  headerFrom,
  envelopeFrom: null,
  dkim: [],
  spf: [],
})
const report = (domain: string, records: DmarcRecord[]): DmarcReport => ({
  orgName: 'google.com',
  email: null,
  reportId: '1',
  begin: 1716163200,
  end: 1716249599,
  domain,
  policy: { p: 'none', sp: null, adkim: null, aspf: null, pct: null },
  records,
})

describe('reportDay', () => {
  test("is the UTC day of the middle of the report's range", () => {
    expect(reportDay({ begin: 1716163200, end: 1716249599 })).toBe('2024-05-20') // Google: 00:00:00 to 23:59:59
    expect(reportDay({ begin: 1716163200, end: 1716249600 })).toBe('2024-05-20') // Microsoft: midnight to midnight
    expect(reportDay({ begin: 1716152400, end: 1716238800 })).toBe('2024-05-20') // 21:00 to 21:00
  })
})

describe('recordsFor', () => {
  test('a report about the domain counts whole, mail from its subdomains too', () => {
    const records = [row('sender.example.com'), row('news.sender.example.com')]
    expect(recordsFor('sender.example.com', report('sender.example.com', records))).toEqual({ ok: true, records })
  })

  test('a report about a parent domain counts only for mail from this domain', () => {
    const mine = row('mail.example.com', 3)
    const result = recordsFor('mail.example.com', report('example.com', [row('example.com'), mine, row('other.example.com')]))
    expect(result).toEqual({ ok: true, records: [mine] })
    expect(recordsFor('mail.example.com', report('example.com', [row('example.com')]))).toEqual({
      ok: false,
      reason: 'the report is about example.com and none of its records are mail from mail.example.com, the domain it was addressed to',
    })
  })

  test('a report about another domain is not for this address', () => {
    for (const other of ['victim.example', 'ender.example.com', 'news.sender.example.com']) {
      expect(recordsFor('sender.example.com', report(other, [row(other)]))).toEqual({
        ok: false,
        reason: `the report is about ${other}, not sender.example.com, the domain it was addressed to`,
      })
    }
  })
})
