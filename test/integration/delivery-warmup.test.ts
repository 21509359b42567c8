// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addContacts, campaignOf } from '../helpers/campaigns.ts'
import { ManualClock } from '../helpers/clock.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { createWorld, type World } from '../helpers/world.ts'

const DAY = 86_400_000
/** 10:00 UTC on a Monday: the warm-up's days are UTC days. */
const clock = new ManualClock(Date.parse('2026-11-23T10:00:00Z'))
let w: World
let gmail: FakeMx

beforeAll(async () => {
  w = await createWorld({ clock, settings: { 'warmup-schedule': '3,5' } })
  gmail = await new FakeMx().start('127.0.0.50', w.port)
  w.dns.records('gmail.com', { type: 'MX', exchange: 'gmail-smtp-in.l.google.com', priority: 5 })
  w.dns.records('workspace.example', { type: 'MX', exchange: 'aspmx.l.google.com', priority: 1 })
  for (const host of ['gmail-smtp-in.l.google.com', 'aspmx.l.google.com']) w.dns.records(host, { type: 'A', address: '127.0.0.50' })
})

afterAll(async () => {
  await gmail.stop()
  await w.close()
})

const send = (to: string[]) =>
  w.t.request('POST', '/api/v1/emails/batch', { key: w.key, body: to.map((address) => ({ from: 'ada@sender.example.com', to: address, subject: 'Hi', text: 'Hello' })) })
const states = async (domains: string[]) =>
  Object.fromEntries(
    (
      await w.t.app.db
        .selectFrom('deliveries')
        .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
        .where('recipient_domain', 'in', domains)
        .groupBy('state')
        .execute()
    ).map((r) => [r.state, Number(r.n)]),
  )

describe('warm-up of a new server', () => {
  test('caps what a large provider gets a day, across the domains it hosts; the rest waits for the next day and never bounces', async () => {
    await send([...Array.from({ length: 6 }, (_, i) => `user${i}@gmail.com`), ...Array.from({ length: 4 }, (_, i) => `user${i}@workspace.example`)])
    await send(Array.from({ length: 10 }, (_, i) => `user${i}@example.net`))
    await w.deliver()
    expect(gmail.received).toHaveLength(3)
    expect(await states(['gmail.com', 'workspace.example'])).toEqual({ delivered: 3, deferred: 7 })
    // A site that is no large provider's is not capped.
    expect(await states(['example.net'])).toEqual({ delivered: 10 })

    const waiting = await w.t.app.db.selectFrom('deliveries').selectAll().where('recipient_domain', 'in', ['gmail.com', 'workspace.example']).where('state', '=', 'deferred').execute()
    const tomorrow = Date.parse('2026-11-24T00:00:00Z')
    for (const delivery of waiting) expect(delivery).toMatchObject({ next_attempt_at: tomorrow, attempts: 0 })
    // Not attempted: no event, and what the email says of the recipient is why it waits, and until when.
    const email = (await w.t.request('GET', `/api/v1/emails/${waiting[0]!.email_id}`, { key: w.key })).body
    expect(email.emailEvents.map((e: any) => e.status)).toEqual(['QUEUED'])
    expect(email.deliveries[0]).toMatchObject({
      state: 'deferred',
      attempts: 0,
      nextAttemptAt: '2026-11-24T00:00:00.000Z',
      lastResponse: expect.stringContaining('day 1 of 2 allows 3 messages a day to Gmail and Google Workspace'),
    })

    // Later the same day: still nothing more, and new mail for the held site is not even claimed.
    clock.advance(6 * 3_600_000)
    await send(['late@gmail.com'])
    await w.deliver()
    expect(gmail.received).toHaveLength(3)
    expect(await w.t.app.db.selectFrom('deliveries').select(['state', 'attempts']).where('recipient', '=', 'late@gmail.com').executeTakeFirst()).toEqual({ state: 'queued', attempts: 0 })

    // Day 2 allows 5; day 3 is past the schedule: no cap.
    clock.advance(DAY)
    await w.deliver()
    expect(gmail.received).toHaveLength(8)
    clock.advance(DAY)
    await w.deliver()
    expect(gmail.received).toHaveLength(11)
    expect(await states(['gmail.com', 'workspace.example'])).toEqual({ delivered: 11 })
  })
})

describe('a campaign under the warm-up caps', () => {
  let late: World
  let lateMx: FakeMx
  const lateClock = new ManualClock(Date.parse('2026-11-23T10:00:00Z'))
  beforeAll(async () => {
    late = await createWorld({ clock: lateClock, settings: { 'warmup-schedule': '2,2,2' } })
    lateMx = await new FakeMx().start('127.0.0.51', late.port)
    late.dns.records('gmail.com', { type: 'MX', exchange: 'gmail-smtp-in.l.google.com', priority: 5 })
    late.dns.records('gmail-smtp-in.l.google.com', { type: 'A', address: '127.0.0.51' })
  })
  afterAll(async () => {
    await lateMx.stop()
    await late.close()
  })

  test('shows in its stats when its last message may go', async () => {
    await addContacts(late, Array.from({ length: 5 }, (_, i) => `reader${i}@gmail.com`))
    const draft = await late.t.request('POST', '/campaigns', {
      key: late.key,
      body: { name: 'Warm', subject: 'Hi', body: '<p>Hello</p>', from: 'ada@sender.example.com', audienceType: 'ALL' },
    })
    const id = draft.body.data.id
    await late.t.request('POST', `/campaigns/${id}/send`, { key: late.key })
    await late.t.app.campaigns.drain()
    await late.deliver()
    // 2 today, 2 tomorrow, the last the day after.
    const stats = (await late.t.request('GET', `/campaigns/${id}/stats`, { key: late.key })).body.data
    expect(stats.expectedFinishAt).toBe('2026-11-25T00:00:00.000Z')
    expect((await campaignOf(late, id)).deliveredCount).toBe(2)
  })
})

describe('MAILSTEAD_WARMUP=off', () => {
  test('sends a large provider everything at once', async () => {
    const off = await createWorld({ settings: { warmup: 'off', 'warmup-schedule': '1' } })
    const mx = await new FakeMx().start('127.0.0.52', off.port)
    try {
      off.dns.records('gmail.com', { type: 'MX', exchange: 'gmail-smtp-in.l.google.com', priority: 5 })
      off.dns.records('gmail-smtp-in.l.google.com', { type: 'A', address: '127.0.0.52' })
      await off.t.request('POST', '/api/v1/emails/batch', {
        key: off.key,
        body: Array.from({ length: 4 }, (_, i) => ({ from: 'ada@sender.example.com', to: `x${i}@gmail.com`, subject: 'Hi', text: 'Hello' })),
      })
      await off.deliver()
      expect(mx.received).toHaveLength(4)
    } finally {
      await mx.stop()
      await off.close()
    }
  })
})
