// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { returnPath } from '../../src/delivery/verp.ts'
import { parseReport } from '../../src/smtp/inbound-report.ts'
import { deliverReport, dsn, RETURN_PATH_HOST } from '../helpers/reports.ts'
import { SECRET } from '../helpers/sending.ts'
import type { RawSocket } from '../helpers/raw-socket.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { createWorld, type World } from '../helpers/world.ts'

const FROM = 'app@sender.example.com'
const refuseUnknown = { onRcpt: (to: string) => (to.startsWith('unknown') ? { code: 550, message: '5.1.1 <' + to + '>: Recipient address rejected: User unknown' } : undefined) }

/** A world whose relay is on, and whose sending domain's own mail lands at the fake MX too (where the notices go). */
async function relayWorld(settings: Record<string, string>) {
  const w = await createWorld({ started: true, mx: refuseUnknown, settings: { 'relay-port': '0', 'mx-port': '0', ...settings } })
  w.dns.records('sender.example.com', { type: 'MX', exchange: 'mx.example.net', priority: 10 })
  const socket = await relaySession(w.t.app.listeners()!.relay.port!, w.key)
  return { w, socket }
}

const message = (to: string, subject: string) => `From: ${FROM}\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@sender.example.com>\r\n\r\nHello.\r\n`

/** Relays one message, then runs the delivery loop until nothing is due (the notice goes out too). */
async function relayed(world: { w: World; socket: RawSocket }, to: string, subject: string) {
  const reply = await sendMessage(world.socket, FROM, [to], message(to, subject))
  expect(reply).toMatch(/^250 /)
  await world.w.deliver()
  await world.w.deliver()
  return queuedId(reply)!
}

const noticesIn = (w: World) => w.mx.received.filter((m) => m.to.includes(FROM))

describe('bounce notices for relayed mail (MAILSTEAD_RELAY_BOUNCE_NOTICES=true)', () => {
  let on: { w: World; socket: RawSocket }
  beforeAll(async () => {
    on = await relayWorld({ 'relay-bounce-notices': 'true' })
  })
  afterAll(async () => {
    on.socket.close()
    await on.w.close()
  })

  test('a recipient refused after the relay said 250 is reported to the envelope sender as a DSN that names it', async () => {
    await relayed(on, 'unknown-1@example.net', 'Invoice 1')
    const notices = noticesIn(on.w)
    expect(notices).toHaveLength(1)
    const raw = notices[0]!.raw
    expect(raw.toString('latin1')).toMatch(/^Content-Type: multipart\/report; report-type=delivery-status;/m)
    expect(raw.toString('latin1')).toMatch(/^Auto-Submitted: auto-replied/m)
    const report = await parseReport(raw)
    expect(report.kind).toBe('dsn')
    if (report.kind !== 'dsn') return
    expect(report.recipients).toEqual([expect.objectContaining({ recipient: 'unknown-1@example.net', action: 'failed', status: '5.1.1' })])
    expect(report.original.messageId).toBe('<Invoice1@sender.example.com>')
    expect(await on.w.dkim(raw)).toEqual([expect.objectContaining({ status: 'pass' }), expect.objectContaining({ status: 'pass' })])
  })

  test('a bounce reported by DSN days after delivery is told to the envelope sender too', async () => {
    const id = await relayed(on, 'moved@example.net', 'Invoice 3')
    const delivery = await on.w.t.app.db.selectFrom('deliveries').select('id').where('email_id', '=', id).executeTakeFirstOrThrow()
    expect(noticesIn(on.w).some((m) => m.raw.toString('latin1').includes('moved@example.net'))).toBe(false)
    const report = dsn({ messageId: '<Invoice3@sender.example.com>', to: ['moved@example.net'], recipients: [{ final: 'moved@example.net', status: '5.1.1' }] })
    const answer = await deliverReport(on.w.t.app.listeners()!.mx.port!, [returnPath(SECRET, delivery.id, RETURN_PATH_HOST)], report)
    expect(answer.response).toMatch(/^250/)
    await on.w.deliver()
    const notice = noticesIn(on.w).find((m) => m.raw.toString('latin1').includes('Final-Recipient: rfc822; moved@example.net'))
    expect(notice).toBeDefined()
    expect(notice!.raw.toString('latin1')).toContain('Diagnostic-Code: smtp; 550 5.1.1 user unknown')
  })

  test('mail that is delivered sends no notice, nor does mail sent over HTTP that bounces', async () => {
    const before = noticesIn(on.w).length
    await relayed(on, 'fine@example.net', 'Fine')
    await on.w.t.request('POST', '/api/v1/emails', { key: on.w.key, body: { from: FROM, to: 'unknown-http@example.net', subject: 'Over HTTP', html: '<p>x</p>' } })
    await on.w.deliver()
    await on.w.deliver()
    expect(noticesIn(on.w)).toHaveLength(before)
  })
})

describe('bounce notices are off by default', () => {
  test('a relayed message that bounces sends nothing back', async () => {
    const off = await relayWorld({})
    try {
      const id = await relayed(off, 'unknown-2@example.net', 'Invoice 2')
      const email = await off.w.t.request('GET', `/api/v1/emails/${id}`, { key: off.w.key })
      expect(email.body.emailEvents.at(-1).status).toBe('BOUNCED')
      expect(noticesIn(off.w)).toHaveLength(0)
    } finally {
      off.socket.close()
      await off.w.close()
    }
  })
})
