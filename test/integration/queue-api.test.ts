// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * The project's queue over HTTP (/api/v1/queue): what the console's Queue page shows and does. A
 * project sees and acts on its own deliveries only; another project's are ones that do not exist.
 */

let w: World
let other: { secretKey: string; publicKey: string }
/** Delivery ids by recipient. */
const ids: Record<string, number> = {}

const send = (to: string, extra: Record<string, unknown> = {}) =>
  w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hi', ...extra } })
const queue = (method: string, path: string, key = w.key, body?: unknown) => w.t.request(method, `/api/v1/queue${path}`, { key, body })
const stateOf = async (recipient: string) =>
  (await w.t.app.db.selectFrom('deliveries').select('state').where('id', '=', ids[recipient]!).executeTakeFirstOrThrow()).state

beforeAll(async () => {
  w = await createWorld()
  // stuck.example and slow.example have no DNS answer yet (SERVFAIL): mail to them is deferred.
  w.dns.set('stuck.example', { servfail: true })
  w.dns.set('slow.example', { servfail: true })
  for (const to of ['a@stuck.example', 'b@stuck.example', 'c@stuck.example', 'e@slow.example', 'd@example.net']) await send(to)
  await send('later@later.example', { scheduledAt: new Date(Date.now() + 3600_000).toISOString() })
  await w.deliver()
  // Another project's mail, deferred until tomorrow: it shows nowhere in this project's queue.
  const project = await w.t.project('Other')
  other = project
  await w.t.app.db
    .insertInto('deliveries')
    .values({ email_id: (await w.t.app.db.selectFrom('emails').select('id').executeTakeFirstOrThrow()).id, project_id: project.id, recipient: 'x@stuck.example', recipient_domain: 'stuck.example', state: 'deferred', attempts: 1, next_attempt_at: Date.now() + 86_400_000, expires_at: Date.now() + 3600_000, created_at: Date.now(), updated_at: Date.now() } as never)
    .execute()
  for (const row of await w.t.app.db.selectFrom('deliveries').select(['id', 'recipient']).execute()) ids[row.recipient] = row.id
})

afterAll(() => w.close())

describe('GET /api/v1/queue', () => {
  test("counts the project's pending deliveries by state and by destination domain, most first", async () => {
    const answer = await queue('GET', '')
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      byState: { deferred: 4, scheduled: 1 },
      byDomain: [
        { domain: 'stuck.example', count: 3 },
        { domain: 'later.example', count: 1 },
        { domain: 'slow.example', count: 1 },
      ],
    })
  })

  test('a public key is refused', async () => {
    expect((await queue('GET', '', other.publicKey)).status).toBe(403)
  })
})

describe('GET /api/v1/queue/deliveries', () => {
  test('pages over the pending deliveries, soonest first, by cursor', async () => {
    const first = await queue('GET', '/deliveries?limit=2')
    expect(first.status).toBe(200)
    expect(first.body.hasMore).toBe(true)
    expect(first.body.deliveries).toHaveLength(2)
    const rest = await queue('GET', `/deliveries?limit=10&cursor=${first.body.cursor}`)
    expect(rest.body).toMatchObject({ hasMore: false, cursor: null })
    const all = [...first.body.deliveries, ...rest.body.deliveries]
    expect(all.map((d: any) => d.recipient).sort()).toEqual(['a@stuck.example', 'b@stuck.example', 'c@stuck.example', 'e@slow.example', 'later@later.example'])
    const times = all.map((d: any) => Date.parse(d.nextAttemptAt))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(all.find((d: any) => d.recipient === 'later@later.example')).toMatchObject({ state: 'scheduled', domain: 'later.example', attempts: 0 })
  })

  test('filters by state and by destination domain', async () => {
    const scheduled = await queue('GET', '/deliveries?state=scheduled')
    expect(scheduled.body.deliveries.map((d: any) => d.recipient)).toEqual(['later@later.example'])
    const slow = await queue('GET', '/deliveries?domain=SLOW.example')
    expect(slow.body.deliveries.map((d: any) => d.recipient)).toEqual(['e@slow.example'])
    expect(slow.body.deliveries[0].lastResponse).toBeString()
  })

  test('a state that is not a pending one, a forged cursor and a page too large are refused, naming the field', async () => {
    for (const [query, field] of [
      ['state=delivered', 'state'],
      ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
      ['limit=1000', 'limit'],
    ]) {
      const answer = await queue('GET', `/deliveries?${query}`)
      expect(answer.status).toBe(422)
      expect(answer.body.errors.map((e: any) => e.field)).toContain(field)
    }
  })
})

describe('retry and cancel', () => {
  test('a deferred delivery retried is due now and goes out once its domain answers', async () => {
    w.dns.records('stuck.example', { type: 'MX', exchange: 'mx.example.net', priority: 10 })
    const answer = await queue('POST', `/deliveries/${ids['a@stuck.example']}/retry`)
    expect(answer).toMatchObject({ status: 200, body: { retried: 1 } })
    // Due now: the delivery loop, woken by the retry's commit, may already have taken it.
    expect(['queued', 'sending', 'delivered']).toContain(await stateOf('a@stuck.example'))
    await w.deliver()
    expect(await stateOf('a@stuck.example')).toBe('delivered')
    expect(w.mx.received.some((m) => m.to.includes('a@stuck.example'))).toBe(true)
  })

  test('retrying what is not deferred or failed is a 409 that says its state; nothing changes', async () => {
    const answer = await queue('POST', `/deliveries/${ids['d@example.net']}/retry`)
    expect(answer.status).toBe(409)
    expect(answer.body.message).toContain('is delivered')
    expect(await stateOf('d@example.net')).toBe('delivered')
  })

  test('a scheduled delivery cancelled is out of the queue, with a CANCELLED event on its email', async () => {
    const answer = await queue('POST', `/deliveries/${ids['later@later.example']}/cancel`)
    expect(answer).toMatchObject({ status: 200, body: { cancelled: 1 } })
    expect(await stateOf('later@later.example')).toBe('cancelled')
    const emailId = (await w.t.app.db.selectFrom('deliveries').select('email_id').where('id', '=', ids['later@later.example']!).executeTakeFirstOrThrow()).email_id
    const email = await w.t.request('GET', `/api/v1/emails/${emailId}`, { key: w.key })
    expect(email.body.emailEvents.map((e: any) => e.status)).toContain('CANCELLED')
    const again = await queue('POST', `/deliveries/${ids['later@later.example']}/cancel`)
    expect(again.status).toBe(409)
  })

  test("another project's delivery, or none, is a 404 to retry or cancel, and is left as it was", async () => {
    for (const action of ['retry', 'cancel']) {
      expect((await queue('POST', `/deliveries/${ids['x@stuck.example']}/${action}`)).status).toBe(404)
      expect((await queue('POST', `/deliveries/999999/${action}`)).status).toBe(404)
    }
    expect(await stateOf('x@stuck.example')).toBe('deferred')
  })

  test("retry all: every deferred delivery of the project to the domain, and no other project's", async () => {
    const answer = await queue('POST', '/retry', w.key, { domain: 'stuck.example' })
    expect(answer).toMatchObject({ status: 200, body: { retried: 2 } })
    expect(['queued', 'sending', 'delivered']).toContain(await stateOf('b@stuck.example'))
    expect(await stateOf('e@slow.example')).toBe('deferred')
    expect(await stateOf('x@stuck.example')).toBe('deferred')
    const everything = await queue('POST', '/retry')
    expect(everything).toMatchObject({ status: 200, body: { retried: 1 } })
    expect(['queued', 'sending', 'delivered', 'deferred']).toContain(await stateOf('e@slow.example'))
  })
})
