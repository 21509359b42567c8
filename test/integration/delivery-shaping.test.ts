import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../helpers/clock.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { createWorld, type World } from '../helpers/world.ts'

const MINUTE = 60_000
/** More than this many messages arriving within a minute, and the throttling MX says 421 4.7.28. */
const N = 20

const clock = new ManualClock(Date.parse('2026-11-23T10:00:00Z'))
let w: World
let throttling: FakeMx
/** When each message arrived at the throttling MX (the clock's time), refused or not. */
const arrivals: number[] = []

beforeAll(async () => {
  w = await createWorld({ clock, settings: { 'delivery-retry-schedule': '30s' } })
  throttling = await new FakeMx({
    onRcpt: () => {
      const now = clock.now()
      arrivals.push(now)
      const lastMinute = arrivals.filter((at) => at > now - MINUTE).length
      return lastMinute > N ? { code: 421, message: '4.7.28 rate limited, try again later' } : undefined
    },
  }).start('127.0.0.40', w.port)
  w.dns.records('throttle.example', { type: 'MX', exchange: 'mx.throttle.example', priority: 10 })
  w.dns.records('mx.throttle.example', { type: 'A', address: '127.0.0.40' })
})

afterAll(async () => {
  await throttling.stop()
  await w.close()
})

const batch = (to: (i: number) => string, count: number) =>
  w.t.request('POST', '/api/v1/emails/batch', {
    key: w.key,
    body: Array.from({ length: count }, (_, i) => ({ from: 'ada@sender.example.com', to: to(i), subject: 'Hi', text: 'Hello' })),
  })

const delivered = async (domain: string) =>
  Number(
    (
      await w.t.app.db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('recipient_domain', '=', domain)
        .where('state', '=', 'delivered')
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('a site that says "slow down"', () => {
  test('is sent less than it allows, gets every message in the end, and a healthy site keeps its speed', async () => {
    const start = clock.now()
    await batch((i) => `user${i}@throttle.example`, 60)
    await batch((i) => `user${i}@example.net`, 60)
    await w.deliver()
    // The healthy site got all of its mail at once, whatever the other one said.
    expect(await delivered('example.net')).toBe(60)
    const firstRefusal = arrivals[N]!
    expect(throttling.offered.length).toBeLessThan(60)

    for (let step = 0; step < 240 && (await delivered('throttle.example')) < 60; step++) {
      clock.advance(5000)
      await w.deliver()
    }
    expect(await delivered('throttle.example')).toBe(60)
    // Once it had said so, no minute saw N messages arrive again.
    const later = arrivals.filter((at) => at > firstRefusal)
    const busiest = Math.max(...later.map((from) => later.filter((at) => at >= from && at < from + MINUTE).length))
    expect(busiest).toBeLessThan(N)
    expect(clock.now() - start).toBeLessThan(15 * MINUTE)

    const site = await w.t.app.db.selectFrom('delivery_sites').selectAll().where('name', '=', 'mx.throttle.example').executeTakeFirstOrThrow()
    expect(site).toMatchObject({ throttle_level: 1, throttle_reason: '421 4.7.28 rate limited, try again later' })
  })
})
