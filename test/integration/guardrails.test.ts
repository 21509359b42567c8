// @database
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { returnPath } from '../../src/delivery/verp.ts'
import { createLogger, silentLogger } from '../../src/lib/logger.ts'
import { createReportHandler } from '../../src/smtp/handle-report.ts'
import { noDns } from '../helpers/app.ts'
import { addContacts, campaignOf, runCampaign } from '../helpers/campaigns.ts'
import { ManualClock } from '../helpers/clock.ts'
import { SECRET } from '../helpers/sending.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * The sending guardrails end to end: real deliveries to a fake MX (which answers 550 5.1.1 to
 * gone*@ addresses: hard bounces), complaints as ARF reports handled as the MX listener handles
 * them, the campaign sender and the webhooks. The minimum is lowered to 20 messages so that a
 * test sends tens of messages, not thousands; the limits are the defaults (0.3% and 5%).
 */

const HOUR = 3_600_000
const ARF = readFileSync(join(import.meta.dir, '..', 'fixtures', 'reports', 'arf-abuse.eml'), 'latin1')

let hooks: HookServer
let w: World
let clock: ManualClock
let logLines: any[]

beforeAll(() => {
  hooks = startHookServer()
})

afterAll(() => hooks.stop())

afterEach(async () => {
  await w?.close()
})

async function world(options: { started?: boolean; settings?: Record<string, string> } = {}) {
  clock = new ManualClock(Date.parse('2026-11-10T09:00:00Z'))
  logLines = []
  w = await createWorld({
    clock,
    logger: createLogger('info', (line) => logLines.push(JSON.parse(line))),
    started: options.started,
    settings: { 'webhook-allow-private-targets': 'true', 'guardrail-min-deliveries': '20', ...options.settings },
    mx: { onRcpt: (to) => (to.startsWith('gone') ? { code: 550, message: '5.1.1 <' + to + '>: Recipient address rejected: User unknown' } : undefined) },
  })
  // The delivery loop runs only when a test says so, so that what the sender queues stays queued
  // until then, as in a busy queue, rather than being claimed while the sender looks.
  if (!options.started) await w.t.app.deliveries.stop()
  return w
}

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
const guardrailLines = (level: string) => logLines.filter((line) => line.tag === 'GUARDRAIL' && line.level === level)
const addresses = (prefix: string, n: number, from = 1) => Array.from({ length: n }, (_, i) => `${prefix}${String(from + i).padStart(3, '0')}@example.net`)

async function draftCampaign(batchSize: number) {
  const draft = await api('POST', '/campaigns', { name: 'Autumn sale', subject: 'Sale', body: '<p>Sale</p>', from: 'news@sender.example.com', audienceType: 'ALL', batchSize })
  expect(draft.status).toBe(201)
  return draft.body.data.id as string
}

/** Runs the delivery loop until nothing more is due. */
async function deliver() {
  await w.t.app.deliveries.start()
  await w.deliver()
  await w.t.app.deliveries.stop()
}

/** The campaign sender's rounds, then the delivery loop's, as their timers would run them. */
async function round() {
  await w.t.app.campaigns.drain()
  await deliver()
}

/** Runs the campaign to its end, the sender and the delivery loop together. */
async function toTheEnd(id: string) {
  await w.t.app.deliveries.start()
  return runCampaign(w, id)
}

const deliveryStates = async (campaignId: string) => {
  const rows = await w.t.app.db
    .selectFrom('deliveries')
    .innerJoin('campaign_recipients as r', 'r.email_id', 'deliveries.email_id')
    .select(['deliveries.state'])
    .where('r.campaign_id', '=', campaignId)
    .execute()
  const states: Record<string, number> = {}
  for (const { state } of rows) states[state] = (states[state] ?? 0) + 1
  return states
}

/** The ARF fixture, made to be about the last delivery to `recipient`. */
async function arfAbout(recipient: string) {
  const delivery = await w.t.app.db.selectFrom('deliveries').selectAll().where('recipient', '=', recipient).orderBy('id', 'desc').executeTakeFirstOrThrow()
  const email = await w.t.app.db.selectFrom('emails').select('message_id').where('id', '=', delivery.email_id).executeTakeFirstOrThrow()
  return ARF.replace(/bounces\+[a-z0-9]+-[a-z2-7]+@mst\.sender\.example\.com/g, returnPath(SECRET, delivery.id, 'mst.sender.example.com'))
    .replace(/<0193a1b2-[0-9a-f-]+@sender\.example\.com>/g, email.message_id)
    .split('user@isp.example')
    .join(recipient)
}

/** A complaint about the last mail to `recipient`, handled as the MX listener handles what it receives. */
async function complain(recipient: string) {
  const fbl = `fbl@${HOSTNAME}`
  const handle = createReportHandler({ db: w.t.app.db, write: w.t.app.writer.run, secret: SECRET, clock, logger: silentLogger, resolver: noDns }, { fblAddress: fbl, fblSenders: [] })
  expect(await handle(Buffer.from(await arfAbout(recipient), 'latin1'), { recipients: [fbl], mailFrom: '', remoteAddress: null })).toEqual({ outcome: 'applied', applied: 1 })
}

const stats = async () => (await api('GET', `/api/v1/domains/${w.domain.id}/stats`)).body

describe('a campaign pauses itself when its domain is over a limit', () => {
  test('complaints over 0.3%: it pauses at once, holding the batch it queued, says why, and fires campaign.paused; resume waits for the rate', async () => {
    await world()
    await createHook(w, w.key, `${hooks.base}/complaints`, ['campaign.paused'])
    await addContacts(w, addresses('reader', 50))
    const id = await draftCampaign(20)
    await api('POST', `/campaigns/${id}/send`, {})
    // The first batch goes out and is delivered: 20 sent, no complaint.
    await round()
    expect(w.mx.received).toHaveLength(20)
    // The second batch is handed to the queue, then a reader of the first complains: 1 of 20 is 5%.
    await w.t.app.campaigns.drain()
    expect(await deliveryStates(id)).toEqual({ delivered: 20, queued: 20 })
    await complain('reader001@example.net')
    await round()
    const paused = await campaignOf(w, id)
    expect(paused.status).toBe('PAUSED')
    expect(paused.error).toBe(
      'Paused by the sending guardrails: complaints were 5% of the mail sender.example.com delivered in the last 24 hours (1 of 20), over the 0.3% limit. ' +
        `It can be resumed once the rate is back under the limit (GET /api/v1/domains/${w.domain.id}/stats).`,
    )
    // What the second batch queued is held, untried; nothing more went out.
    expect(await deliveryStates(id)).toEqual({ delivered: 20, paused: 20 })
    expect(w.mx.received).toHaveLength(20)

    await w.t.app.webhooks.drain()
    const [event, ...more] = hooks.to('/complaints')
    expect(more).toEqual([])
    expect(event!.payload).toMatchObject({ type: 'campaign.paused' })
    expect(event!.payload.data).toEqual({
      id,
      name: 'Autumn sale',
      total: 50,
      pausedAt: new Date(clock.now()).toISOString(),
      reason: 'complaint_rate',
      message: paused.error,
      guardrail: {
        domainId: w.domain.id,
        domain: 'sender.example.com',
        windowHours: 24,
        sent: 20,
        delivered: 20,
        bounced: 0,
        hardBounced: 0,
        complained: 1,
        complaintRate: 5,
        hardBounceRate: 0,
        complaintLimit: 0.3,
        hardBounceLimit: 5,
        minDeliveries: 20,
      },
    })
    const [line] = guardrailLines('warn')
    expect(line).toMatchObject({ campaignId: id, reason: 'complaint_rate', domain: 'sender.example.com', complained: 1, delivered: 20 })
    expect(line.msg).toContain('campaign Autumn sale paused: complaints were 5%')

    // Resuming now would only pause it again: refused, saying why, with both APIs.
    for (const path of [`/campaigns/${id}/resume`, `/api/v1/campaigns/${id}/resume`]) {
      const refused = await api('POST', path)
      expect(refused.status).toBe(409)
      expect(refused.body).toMatchObject({ code: 'SENDING_GUARDRAIL', message: expect.stringContaining('complaints were 5% of the mail sender.example.com delivered') })
      expect(refused.body.suggestion).toContain('24-hour window')
    }
    expect((await campaignOf(w, id)).status).toBe('PAUSED')

    // A day later the complaint has left the window: it resumes, and sends the rest, each once.
    clock.advance(24 * HOUR)
    expect((await api('POST', `/campaigns/${id}/resume`)).status).toBe(200)
    expect((await toTheEnd(id)).status).toBe('SENT')
    expect(await deliveryStates(id)).toEqual({ delivered: 50 })
    expect(new Set(w.mx.received.flatMap((m) => m.to)).size).toBe(50)
  })

  test.each([
    ['2 hard bounces in 20 (10%): pauses before its next batch', 2, 'PAUSED'],
    ['1 hard bounce in 20 (exactly 5%, not over it): goes on', 1, 'SENDING'],
  ])('%s', async (_, gone, status) => {
    await world()
    await createHook(w, w.key, `${hooks.base}/bounces-${gone}`, ['campaign.paused'])
    // Contacts are handed in id order, which is the order they were added.
    await addContacts(w, [...addresses('gone', gone), ...addresses('reader', 50 - gone)])
    const id = await draftCampaign(20)
    await api('POST', `/campaigns/${id}/send`, {})
    await round()
    expect(await deliveryStates(id)).toEqual({ delivered: 20 - gone, bounced: gone })
    await w.t.app.campaigns.drain()
    const campaign = await campaignOf(w, id)
    expect(campaign.status).toBe(status)
    await w.t.app.webhooks.drain()
    if (status === 'PAUSED') {
      expect(campaign.error).toContain(`hard bounces were 10% of the mail sender.example.com sent in the last 24 hours (2 of 20), over the 5% limit`)
      expect(hooks.to(`/bounces-${gone}`).map((c) => [c.payload.data.reason, c.payload.data.guardrail.hardBounceRate])).toEqual([['hard_bounce_rate', 10]])
      // Stopped before its second batch: nothing of it was queued.
      expect(await deliveryStates(id)).toEqual({ delivered: 18, bounced: 2 })
    } else {
      expect(campaign.error).toBeNull()
      expect(hooks.to(`/bounces-${gone}`)).toEqual([])
      expect(await deliveryStates(id)).toEqual({ delivered: 19, bounced: 1, queued: 20 })
    }
  })

  test('under the minimum of messages sent, rates are not judged: a campaign with a complaint in 10 goes on to the end', async () => {
    await world()
    await addContacts(w, addresses('reader', 15))
    const id = await draftCampaign(5)
    await api('POST', `/campaigns/${id}/send`, {})
    await round()
    await complain('reader001@example.net')
    expect((await toTheEnd(id)).status).toBe('SENT')
    expect(await deliveryStates(id)).toEqual({ delivered: 15 })
    expect(await stats()).toMatchObject({ sent: 15, complained: 1, complaintRate: 6.667, judged: false, over: [], message: null })
    expect(guardrailLines('warn')).toEqual([])
  })
})

describe('campaign.paused for every pause', () => {
  test("a pause by the user says reason 'user'; one by a campaign that cannot go on says 'error' and why", async () => {
    await world()
    await createHook(w, w.key, `${hooks.base}/pauses`, ['campaign.paused'])
    await addContacts(w, addresses('reader', 10))
    const id = await draftCampaign(5)
    await api('POST', `/campaigns/${id}/send`, {})
    await w.t.app.campaigns.drain()
    expect((await api('POST', `/campaigns/${id}/pause`)).status).toBe(200)
    expect(await deliveryStates(id)).toEqual({ paused: 5 })
    expect((await api('POST', `/api/v1/campaigns/${id}/resume`)).status).toBe(200)
    // Its domain loses its verification while it sends.
    await w.t.app.db.updateTable('domains').set({ status: 'FAILED' }).where('id', '=', w.domain.id).execute()
    await w.t.app.campaigns.drain()
    await w.t.app.webhooks.drain()
    const data = hooks.to('/pauses').map((call) => call.payload.data)
    expect(data.map((d) => [d.reason, d.message])).toEqual([
      ['user', null],
      ['error', 'The sender domain sender.example.com is not a verified domain of this project'],
    ])
    expect(data.every((d) => d.id === id && d.guardrail === undefined)).toBe(true)
  })
})

describe('transactional mail', () => {
  test('is never paused: it is counted, a warning is logged once when the domain crosses a limit, and the rates are in the API', async () => {
    await world()
    const send = (to: string) => api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to, subject: 'Your receipt', html: '<p>Thanks</p>' })
    for (const to of [...addresses('gone', 3), ...addresses('buyer', 17)]) expect((await send(to)).status).toBe(200)
    await deliver()
    expect(await stats()).toEqual({
      domainId: w.domain.id,
      name: 'sender.example.com',
      windowHours: 24,
      sent: 20,
      delivered: 17,
      bounced: 3,
      hardBounced: 3,
      complained: 0,
      complaintRate: 0,
      hardBounceRate: 15,
      limits: { complaintRate: 0.3, hardBounceRate: 5, minDeliveries: 20 },
      judged: true,
      over: ['hard_bounce_rate'],
      message: 'hard bounces were 15% of the mail sender.example.com sent in the last 24 hours (3 of 20), over the 5% limit',
    })
    // The monitor warns once for the crossing, not once per message or per look.
    await w.t.app.guardrails.tick()
    for (const to of addresses('buyer', 5, 100)) expect((await send(to)).status).toBe(200)
    await deliver()
    await w.t.app.guardrails.tick()
    const warnings = guardrailLines('warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ projectId: w.projectId, domain: 'sender.example.com', breach: 'hard_bounce_rate', state: 'over', sent: 20, hardBounced: 3 })
    expect(warnings[0].msg).toContain('its transactional mail goes on')
    // Every message was tried and settled: nothing held.
    const states = await w.t.app.db.selectFrom('deliveries').select('state').execute()
    expect(states.filter((s) => s.state !== 'delivered' && s.state !== 'bounced')).toEqual([])
    expect(w.mx.received).toHaveLength(22)
    expect(await stats()).toMatchObject({ sent: 25, delivered: 22, hardBounced: 3, hardBounceRate: 12, over: ['hard_bounce_rate'] })
  })

  test('a complaint through the MX listener (an ARF report over SMTP) is counted', async () => {
    await world({ started: true, settings: { 'mx-port': '0' } })
    const sent = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to: 'grumpy@example.net', subject: 'Hi', html: '<p>Hi</p>' })
    expect(sent.status).toBe(200)
    await w.deliver()
    const connection = new SMTPConnection({ host: '127.0.0.1', port: w.t.app.listeners()!.mx.port!, tls: { rejectUnauthorized: false }, name: 'fbl.isp.example' } as never)
    connection.on('error', () => {})
    await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
    const report = await arfAbout('grumpy@example.net')
    const info: any = await new Promise((resolve) => connection.send({ from: '', to: [`fbl@${HOSTNAME}`] }, report, (error, result) => resolve(error ?? result)))
    connection.quit()
    expect(info.response).toMatch(/^250/)
    expect(await stats()).toMatchObject({ sent: 1, delivered: 1, complained: 1, complaintRate: 100, judged: false })
  })
})

test('the stats of a domain of another project, or of none, are a 404', async () => {
  await world()
  const other = await w.t.project('Other')
  expect((await w.t.request('GET', `/api/v1/domains/${w.domain.id}/stats`, { key: other.secretKey })).status).toBe(404)
  expect((await api('GET', '/api/v1/domains/999/stats')).status).toBe(404)
  expect((await api('GET', '/api/v1/domains/abc/stats')).status).toBe(422)
})
