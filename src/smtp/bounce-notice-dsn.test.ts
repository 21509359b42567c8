import { describe, expect, test } from 'bun:test'
import { parseReport } from './inbound-report.ts'
import { buildDsn, type DsnFacts } from '../core/emails/dsn-message.ts'

const facts: DsnFacts = {
  reportingMta: 'mst.sender.example.com',
  from: 'Mail Delivery System <mailer-daemon@sender.example.com>',
  to: 'app@sender.example.com',
  messageId: '<notice-1@sender.example.com>',
  date: new Date(Date.UTC(2026, 10, 27, 9)),
  original: { subject: 'Invoice 7', messageId: '<inv7@sender.example.com>', arrivedAt: new Date(Date.UTC(2026, 10, 27, 8)), head: 'From: app@sender.example.com\r\nSubject: Invoice 7\r\n' },
  recipient: 'gone@example.net',
  status: '5.1.1',
  diagnostic: '550 5.1.1 <gone@example.net>: User unknown',
  remoteMta: 'mx.example.net',
}

describe('a bounce notice (RFC 3464)', () => {
  test('reads back as a DSN naming the recipient, its status and the original', async () => {
    const report = await parseReport(Buffer.from(await buildDsn(facts)))
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ recipient: 'gone@example.net', action: 'failed', status: '5.1.1' }], original: { messageId: '<inv7@sender.example.com>' } })
  })

  test('a remote reply cannot add fields to it: line ends in it become spaces', async () => {
    const raw = Buffer.from(await buildDsn({ ...facts, diagnostic: '550 no\r\nAction: delivered\r\nX-Evil: 1' })).toString('latin1')
    expect(raw).not.toMatch(/^X-Evil/m)
    expect(raw.match(/^Action: /gm)).toHaveLength(1)
  })

  test('without the original kept, it has two parts; with it, three', async () => {
    const parts = async (f: DsnFacts) => (Buffer.from(await buildDsn(f)).toString('latin1').match(/^Content-Type: /gm) ?? []).length - 1
    expect(await parts(facts)).toBe(3)
    expect(await parts({ ...facts, original: { ...facts.original, head: null } })).toBe(2)
  })
})
