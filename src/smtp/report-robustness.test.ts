import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseReport } from './inbound-report.ts'

const fixture = (name: string) => readFileSync(join(import.meta.dir, '../../test/fixtures/reports', name), 'latin1')
const bytes = (text: string) => Buffer.from(text, 'latin1')
/** The fixture cut just after `marker` (and `extra` characters more). */
const cut = (name: string, marker: string, extra = 0) => {
  const text = fixture(name)
  return bytes(text.slice(0, text.indexOf(marker) + marker.length + extra))
}

describe('parseReport on damaged or odd input', () => {
  test('an empty message is not a report', async () => {
    expect(await parseReport(Buffer.alloc(0))).toEqual({ kind: 'other', reason: 'neither a multipart/report nor a bounce' })
  })

  test('random bytes are not a report', async () => {
    let seed = 42
    const random = Buffer.from(Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff))
    expect((await parseReport(random)).kind).toBe('other')
  })

  test('a message cut in the middle of the delivery-status part gives what it had', async () => {
    const report = await parseReport(cut('postfix-bounce.eml', 'Action: failed\r\nSta'))
    expect(report).toEqual({
      kind: 'dsn',
      reportingMta: 'mx1.example.net',
      recipients: [{ recipient: 'nobody@example.net', originalRecipient: 'nobody@example.net', action: 'failed', status: null, diagnostic: null, remoteMta: null }],
      // Nothing was returned, but Postfix names the envelope sender in the report itself.
      original: { messageId: null, returnPath: 'bounces+1a2b-k3m7q2xvnrt4wz6a@mst.sender.example.com', to: [], fromDomain: null },
    })
  })

  test('a message cut before any recipient group is not a report', async () => {
    expect(await parseReport(cut('postfix-bounce.eml', 'Reporting-MTA: dns; mx1.exa'))).toEqual({
      kind: 'other',
      reason: 'a delivery-status report that names no recipient',
    })
  })

  test('a bounce cut in its headers, so with no text, is not a report', async () => {
    expect(await parseReport(cut('postfix-bounce.eml', 'Content-Type: multipart/re'))).toEqual({ kind: 'other', reason: 'a bounce with no text' })
  })

  test('a message cut inside the returned message still names the original', async () => {
    const report = await parseReport(cut('postfix-bounce.eml', 'Message-ID: <0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b@sender.example.com>'))
    expect(report).toMatchObject({ kind: 'dsn', original: { messageId: '<0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b@sender.example.com>' } })
  })

  test('raw 8-bit (UTF-8) header values in the report and the returned message are read as UTF-8', async () => {
    const raw = fixture('exim-bounce.eml')
      .replace('Subject: Mail delivery failed', 'Subject: Échec de remise — Mail delivery failed')
      .replace('To: "Doe, Jane" <Jane.Doe@exim.example.org>', 'To: Jörg Müller <Jörg@exim.example.org>')
    const report = await parseReport(Buffer.from(raw, 'utf8'))
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ recipient: 'jane.doe@exim.example.org', status: '5.0.0' }], original: { to: ['jörg@exim.example.org'] } })
  })

  test('a multipart/report of another report-type is not acted on', async () => {
    const mdn = fixture('delivered.eml').replace('report-type=delivery-status', 'report-type=disposition-notification')
    expect(await parseReport(bytes(mdn))).toEqual({
      kind: 'other',
      reason: 'a multipart/report of report-type disposition-notification, which this server does not act on',
    })
  })

  test('a feedback report without its feedback-report part is not a report', async () => {
    const arf = fixture('arf-abuse.eml').replace('Content-Type: message/feedback-report', 'Content-Type: text/plain')
    expect(await parseReport(bytes(arf))).toEqual({ kind: 'other', reason: 'a feedback report without a message/feedback-report part' })
  })

  test('a delivery-status part inside multipart/mixed is still read as a DSN', async () => {
    const mixed = fixture('sendmail-bounce.eml').replace('multipart/report; report-type=delivery-status;', 'multipart/mixed;')
    expect(await parseReport(bytes(mixed))).toMatchObject({ kind: 'dsn', recipients: [{ recipient: 'prof.smith@sendmail.example.edu' }] })
  })

  test('a DSN that returned nothing takes the Message-ID from In-Reply-To', async () => {
    const text = fixture('exchange-bounce.eml')
    const withoutHeaders = text.slice(0, text.lastIndexOf('--c3a8e1f0', text.indexOf('Content-Type: text/rfc822-headers'))) + '--c3a8e1f0-5b2d-4e7a-9f61-0d8b2c4e6a13--\r\n'
    expect(await parseReport(bytes(withoutHeaders))).toMatchObject({
      kind: 'dsn',
      original: { messageId: '<0193a1b2-af30-7142-9d53-4e5f6a7b8c9d@sender.example.com>', returnPath: null, to: [] },
    })
  })
})
