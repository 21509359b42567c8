// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { REPORTS_KEPT } from '../../src/core/inbound/received-reports.repository.ts'
import { arf, deliverReport, dsn, plainBounce, sendToAll, type Sent } from '../helpers/reports.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * A report is applied once per delivery and class of effect (a bounce, hard or soft; a delay; a
 * complaint), whatever the report writes about it. The attacker here holds a token: they are a
 * recipient sending their own complaint or bounce again and again, varied.
 */

const FBL = `fbl@${HOSTNAME}`
let w: World
let hooks: HookServer
let port: number
let n = 0

beforeAll(async () => {
  hooks = startHookServer()
  w = await createWorld({ started: true, settings: { 'mx-port': '0', 'webhook-allow-private-targets': 'true' } })
  port = w.t.app.listeners()!.mx.port!
  await createHook(w, w.key, `${hooks.base}/all`, ['email.bounced', 'email.complained', 'email.delivery_delayed'])
})

afterAll(async () => {
  await w.close()
  hooks.stop()
})

async function one() {
  const { emailId, messageId, deliveries } = await sendToAll(w, [`once${++n}@example.net`])
  return { emailId, messageId, d: deliveries[0]!, to: [deliveries[0]!.recipient] }
}

/** What a report changes about a delivery, and what it leaves behind: events, webhooks queued, fingerprints, counters. */
async function effectsOn(emailId: string, d: Sent) {
  const db = w.t.app.db
  const events = await db.selectFrom('email_events').select(['status', 'data']).where('email_id', '=', emailId).where('status', 'in', ['BOUNCED', 'COMPLAINED', 'DELIVERY_DELAYED']).orderBy('id').execute()
  const hooked = await db.selectFrom('webhook_deliveries').select('payload').execute()
  const fingerprints = await db.selectFrom('inbound_reports').select('fingerprint').where('fingerprint', 'like', `delivery:${d.id}|%`).orderBy('fingerprint').execute()
  const suppression = await db.selectFrom('suppressions').selectAll().where('email', '=', d.recipient).executeTakeFirst()
  const counters = await db.selectFrom('sending_counters').select((eb) => [eb.fn.sum<number>('complained').as('complained'), eb.fn.sum<number>('hard_bounced').as('hardBounced')]).executeTakeFirstOrThrow()
  return {
    events: events.map((e) => ({ status: e.status, hard: JSON.parse(e.data!).hard })),
    webhooks: hooked.filter((h) => h.payload.includes(emailId)).length,
    fingerprints: fingerprints.map((f) => f.fingerprint.replace(`delivery:${d.id}|`, '')),
    suppression: suppression && { reason: suppression.reason, detail: suppression.detail },
    counters: { complained: Number(counters.complained ?? 0), hardBounced: Number(counters.hardBounced ?? 0) },
  }
}

const outcomes = async (since: number) =>
  (await w.t.app.db.selectFrom('received_reports').select('outcome').where('id', '>', since).orderBy('id').execute()).map((r) => r.outcome)
const lastId = async () => (await w.t.app.db.selectFrom('received_reports').select('id').orderBy('id', 'desc').executeTakeFirst())?.id ?? 0

describe('the detail a report writes is no new report', () => {
  test('a recipient sending their own complaint as abuse1, abuse2, ... at their return path and at the feedback address: one complaint', async () => {
    const { emailId, messageId, d, to } = await one()
    await deliverReport(port, [d.verp], arf({ messageId, to, rcptTo: d.recipient, feedbackType: 'abuse' }))
    const once = await effectsOn(emailId, d)
    expect(once).toMatchObject({ events: [{ status: 'COMPLAINED' }], webhooks: 1, fingerprints: ['complaint'], suppression: { reason: 'complaint', detail: 'abuse' } })
    const since = await lastId()
    const variants = ['abuse1', 'abuse2', 'fraud', 'virus', 'other', 'not-spam', 'x'.repeat(300)]
    for (const feedbackType of variants) await deliverReport(port, [d.verp], arf({ messageId, to, rcptTo: d.recipient, feedbackType }))
    await deliverReport(port, [FBL], arf({ messageId, to, rcptTo: d.recipient, returnPath: d.verp, feedbackType: 'abuse3' }))
    expect(await effectsOn(emailId, d)).toEqual(once)
    expect(await outcomes(since)).toEqual(Array(variants.length + 1).fill('duplicate'))
  })

  test('the same bounce under other statuses, actions and report kinds: one bounce', async () => {
    const { emailId, messageId, d, to } = await one()
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, status: '5.1.1' }] }))
    const once = await effectsOn(emailId, d)
    expect(once).toMatchObject({ events: [{ status: 'BOUNCED', hard: true }], webhooks: 1, fingerprints: ['bounce', 'hard-bounce'], suppression: { reason: 'hard_bounce' } })
    for (const status of ['5.1.10', '5.0.0', '5.1.2', '5.9.99', '5.2.2']) await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, status }] }))
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient.toUpperCase(), status: '5.1.1' }, { final: d.recipient, status: '5.1.3' }] }))
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n550 5.1.1 user unknown`, messageId, to }))
    expect(await effectsOn(emailId, d)).toEqual(once)
  })

  test('delay notices under several statuses: one delay', async () => {
    const { emailId, messageId, d, to } = await one()
    for (const status of ['4.4.7', '4.4.1', '4.0.0', '4.7.0']) await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, action: 'delayed', status }] }))
    expect((await effectsOn(emailId, d)).events).toEqual([{ status: 'DELIVERY_DELAYED', hard: undefined }])
  })
})

describe('a bounce, hard or soft, is one class', () => {
  test('the DSN, then a plain-text copy that reads as a soft bounce (mailbox full): one bounce, the hard one', async () => {
    const { emailId, messageId, d, to } = await one()
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, status: '5.1.1' }] }))
    const once = await effectsOn(emailId, d)
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n552 5.2.2 mailbox full`, messageId, to }))
    expect(await effectsOn(emailId, d)).toEqual(once)
    expect(once.events).toEqual([{ status: 'BOUNCED', hard: true }])
  })

  test('a DSN that reports a full mailbox is the soft bounce its reply would be: nothing suppressed, and its plain copy is the same bounce', async () => {
    const { emailId, messageId, d, to } = await one()
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, status: '5.2.2' }] }))
    const once = await effectsOn(emailId, d)
    expect(once).toMatchObject({ events: [{ status: 'BOUNCED', hard: false }], fingerprints: ['bounce'], suppression: undefined })
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n552 5.2.2 mailbox full`, messageId, to }))
    expect(await effectsOn(emailId, d)).toEqual(once)
  })

  test('a soft bounce, then a hard one: upgraded once (suppressed, counted hard once); more of either change nothing', async () => {
    const { emailId, messageId, d, to } = await one()
    const before = await effectsOn(emailId, d)
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n552 5.2.2 mailbox full`, messageId, to }))
    const soft = await effectsOn(emailId, d)
    expect(soft).toMatchObject({ events: [{ status: 'BOUNCED', hard: false }], fingerprints: ['bounce'], suppression: undefined, counters: before.counters })
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n552 5.2.2 over quota, try later`, messageId, to }))
    expect(await effectsOn(emailId, d)).toEqual(soft)
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, status: '5.1.1' }] }))
    const hard = await effectsOn(emailId, d)
    expect(hard).toMatchObject({
      events: [{ status: 'BOUNCED', hard: false }, { status: 'BOUNCED', hard: true }],
      fingerprints: ['bounce', 'hard-bounce'],
      suppression: { reason: 'hard_bounce' },
      counters: { complained: before.counters.complained, hardBounced: before.counters.hardBounced + 1 },
    })
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, status: '5.1.10' }] }))
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n552 5.2.2 mailbox full`, messageId, to }))
    expect(await effectsOn(emailId, d)).toEqual(hard)
  })

  test('neighbour: a delay, a bounce and a complaint about one delivery are three things, each applied once', async () => {
    const { emailId, messageId, d, to } = await one()
    for (let i = 0; i < 2; i++) {
      await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, action: 'delayed', status: '4.4.7' }] }))
      await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient }] }))
      await deliverReport(port, [d.verp], arf({ messageId, to, rcptTo: d.recipient }))
    }
    expect(await effectsOn(emailId, d)).toMatchObject({
      events: [{ status: 'DELIVERY_DELAYED' }, { status: 'BOUNCED', hard: true }, { status: 'COMPLAINED' }],
      webhooks: 3,
      fingerprints: ['bounce', 'complaint', 'delay', 'hard-bounce'],
    })
  })
})

describe('the report log', () => {
  test('junk at the feedback address past its cap pushes out older junk, never the record of what was applied', async () => {
    const { emailId, messageId, d, to } = await one()
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient }], id: '<the-real-bounce@mx.example.net>' }))
    const applied = await w.t.app.db.selectFrom('received_reports').select(['id', 'outcome']).where('message_id', '=', '<the-real-bounce@mx.example.net>').executeTakeFirstOrThrow()
    expect(applied.outcome).toBe('applied')
    // The untrusted log filled to its cap, as a flood leaves it; then more junk through SMTP.
    const filler = { received_at: 0, remote_address: null, mail_from: '', rcpt_to: '[]', kind: 'arf', subject: 'junk', message_id: null, outcome: 'untrusted' as const, reason: 'junk', verdicts: '[]', raw: new Uint8Array(1), raw_size: 1 }
    for (let i = 0; i < REPORTS_KEPT.untrusted; i += 500) await w.t.app.db.insertInto('received_reports').values(Array(500).fill(filler)).execute()
    for (let i = 0; i < 20; i++) expect((await deliverReport(port, [FBL], arf({ messageId, to, rcptTo: d.recipient }))).response).toMatch(/^250/)
    const untrusted = await w.t.app.db.selectFrom('received_reports').select((eb) => eb.fn.countAll<number>().as('n')).where('outcome', '=', 'untrusted').executeTakeFirstOrThrow()
    expect(Number(untrusted.n)).toBe(REPORTS_KEPT.untrusted)
    expect(await w.t.app.db.selectFrom('received_reports').select('id').where('id', '=', applied.id).executeTakeFirst()).toEqual({ id: applied.id })
    expect((await effectsOn(emailId, d)).events).toEqual([{ status: 'BOUNCED', hard: true }])
  })
})
