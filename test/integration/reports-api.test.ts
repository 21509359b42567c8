// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { googleReport, googleStyle, record } from '../helpers/dmarc.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'
import { arf, deliverReport, dsn, sendToAll } from '../helpers/reports.ts'
import { createWorld, type World } from '../helpers/world.ts'

/* The reports the server received, as the API shows them to the project they are about. */

checkAnswersAgainstDocument()

const RUA = 'dmarc@mst.sender.example.com'
const SERVER_IP = '192.0.2.10'
let w: World
let port: number

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'mx-port': '0', 'public-ips': SERVER_IP } })
  port = w.t.app.listeners()!.mx.port!
})

afterAll(() => w.close())

describe('the DMARC overview', () => {
  test("says per domain how many messages and sources passed, failed, and were not this server", async () => {
    const records = record(SERVER_IP, 10) + record('203.0.113.5', 3, { dkim: 'fail', spf: 'fail' }) + record('198.51.100.9', 2)
    const sent = await deliverReport(port, [RUA], googleStyle(RUA, googleReport({ reportId: 'overview', records })), 'noreply-dmarc-support@google.com')
    expect(sent.response).toMatch(/^250/)
    const answer = await w.t.request('GET', '/api/v1/reports/dmarc?from=2024-05-20&to=2024-05-20', { key: w.key })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ from: '2024-05-20', to: '2024-05-20', page: 1, pageSize: 20, total: 1 })
    const [line] = answer.body.domains
    expect(line.domain).toEqual({ id: w.domain.id, name: 'sender.example.com' })
    expect(line.reports).toBe(1)
    expect(line.totals).toMatchObject({ messages: 15, dmarcPass: 12, dmarcFail: 3, fromThisServer: 10, fromElsewhere: 5 })
    expect(line.sources).toEqual({ total: 3, passing: 2, failing: 1, notThisServer: 2 })
  })

  test('is paged, and a bad date is refused naming the field', async () => {
    expect((await w.t.request('GET', '/api/v1/reports/dmarc?page=2&pageSize=1', { key: w.key })).body).toMatchObject({ domains: [], page: 2, pageSize: 1, total: 1 })
    const bad = await w.t.request('GET', '/api/v1/reports/dmarc?from=2024-13-01', { key: w.key })
    expect(bad.status).toBe(422)
    expect(JSON.stringify(bad.body)).toContain('from')
  })
})

describe('bounce and complaint reports received', () => {
  let bounced: { emailId: string; recipient: string }
  let complained: { emailId: string; recipient: string }

  beforeAll(async () => {
    const { emailId, messageId, deliveries } = await sendToAll(w, ['gone@example.net', 'angry@example.net', 'slow@example.net'])
    const to = deliveries.map((d) => d.recipient)
    const [gone, angry, slow] = deliveries
    bounced = { emailId, recipient: gone!.recipient }
    complained = { emailId, recipient: angry!.recipient }
    await deliverReport(port, [gone!.verp], dsn({ messageId, to, recipients: [{ final: gone!.recipient, status: '5.1.1' }] }))
    await deliverReport(port, [angry!.verp], arf({ messageId, to, rcptTo: angry!.recipient, feedbackType: 'abuse' }))
    await deliverReport(port, [slow!.verp], dsn({ messageId, to, recipients: [{ final: slow!.recipient, action: 'delayed', status: '4.4.1' }] }))
    // The same bounce again: already applied.
    await deliverReport(port, [gone!.verp], dsn({ messageId, to, recipients: [{ final: gone!.recipient, status: '5.1.1' }] }))
  })

  const list = (query = '', key = w.key) => w.t.request('GET', `/api/v1/reports/received${query}`, { key })

  test('are listed newest first, each with what was done about the delivery it named', async () => {
    const answer = await list()
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ page: 1, pageSize: 20, total: 4 })
    const [again, delay, complaint, bounce] = answer.body.reports
    expect(bounce).toMatchObject({ kind: 'dsn', outcome: 'applied', reason: null })
    expect(bounce.actions).toEqual([
      {
        ...bounced,
        effect: 'hard-bounce',
        said: '550 5.1.1 user unknown',
        result: 'applied',
        action: 'suppressed',
        description: 'The address was suppressed in this project and its contact unsubscribed (a permanent bounce)',
      },
    ])
    expect(complaint).toMatchObject({ kind: 'arf', outcome: 'applied' })
    expect(complaint.actions[0]).toMatchObject({ ...complained, effect: 'complaint', said: 'Feedback type abuse, reported by mail.isp.example', action: 'suppressed' })
    expect(delay.actions[0]).toMatchObject({ effect: 'delay', said: '550 4.4.1 user unknown', result: 'applied', action: 'recorded' })
    expect(again).toMatchObject({ outcome: 'duplicate' })
    expect(again.actions[0]).toMatchObject({ ...bounced, result: 'duplicate', action: 'none' })
    // What the actions say is what happened: the two addresses are suppressed.
    const suppressed = await w.t.request('GET', '/api/v1/suppressions', { key: w.key })
    expect(JSON.stringify(suppressed.body)).toContain(bounced.recipient)
    expect(JSON.stringify(suppressed.body)).toContain(complained.recipient)
  })

  test('are filtered by kind: the bounces, or the complaints', async () => {
    const bounces = await list('?kind=dsn')
    expect(bounces.body.total).toBe(3)
    expect(bounces.body.reports.every((r: { kind: string }) => r.kind === 'dsn')).toBe(true)
    const complaints = await list('?kind=arf&outcome=applied')
    expect(complaints.body).toMatchObject({ total: 1, reports: [{ kind: 'arf', outcome: 'applied' }] })
    expect((await list('?kind=plain-bounce')).body.total).toBe(0)
    const wrong = await list('?kind=other')
    expect(wrong.status).toBe(422)
    expect(JSON.stringify(wrong.body)).toContain('kind')
  })

  test('are paged and filtered by outcome', async () => {
    const page = await list('?page=2&pageSize=3')
    expect(page.body).toMatchObject({ page: 2, pageSize: 3, total: 4 })
    expect(page.body.reports).toHaveLength(1)
    const duplicates = await list('?outcome=duplicate')
    expect(duplicates.body.total).toBe(1)
    expect((await list('?outcome=exploded')).status).toBe(422)
  })

  test("another project sees none of them, nor a report that proved no delivery", async () => {
    const other = await w.t.project('Elsewhere')
    expect((await list('', other.secretKey)).body).toMatchObject({ reports: [], total: 0 })
    await deliverReport(port, ['bounces+notatoken@mst.sender.example.com'], dsn({ messageId: '<nothing@example>', to: ['x@example.net'], recipients: [{ final: 'x@example.net' }] }))
    expect((await list()).body.total).toBe(4)
  })
})
