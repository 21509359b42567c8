// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createLogger } from '../../src/lib/logger.ts'
import { cli } from '../helpers/cli.ts'
import { ManualClock } from '../helpers/clock.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { createWorld, type World } from '../helpers/world.ts'

const MINUTE = 60_000
/** More than this many messages arriving within a minute, and the throttling MX says 421 4.7.28. */
const N = 20

// Starts at the real time: the CLI, run beside the server, reads the state with the real clock.
const clock = new ManualClock(Date.now())
let w: World
let throttling: FakeMx
let blocking: FakeMx
/** The blocking MX refuses everything while this holds. */
let blocked = true
/** When each message arrived at the throttling MX (the clock's time), refused or not. */
const arrivals: number[] = []
const logged: any[] = []
const METRICS_TOKEN = 'metrics-token-for-tests'

beforeAll(async () => {
  w = await createWorld({
    clock,
    settings: { 'delivery-retry-schedule': '30s', 'metrics-token': METRICS_TOKEN },
    logger: createLogger('info', (line) => logged.push(JSON.parse(line))),
  })
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
  blocking = await new FakeMx({
    onRcpt: () => (blocked ? { code: 554, message: '5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org' } : undefined),
  }).start('127.0.0.41', w.port)
  w.dns.records('blocked.example', { type: 'MX', exchange: 'mx.blocked.example', priority: 10 })
  w.dns.records('mx.blocked.example', { type: 'A', address: '127.0.0.41' })
})

afterAll(async () => {
  await throttling.stop()
  await blocking.stop()
  await w.close()
})

const siteOf = async (name: string) => ((await w.t.request('GET', '/api/v1/sites', { key: w.key })).body.data as any[]).find((site) => site.name === name)

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

  test('is listed with its limits, rate and reason by the API, the CLI and metrics; after a quiet period its limits come back', async () => {
    const site = await siteOf('mx.throttle.example')
    expect(site).toMatchObject({
      provider: null,
      mxHosts: ['mx.throttle.example'],
      baseLimits: { connections: 5, messagesPerConnection: 100, messagesPerMinute: null },
      throttle: { level: 1, reason: '421 4.7.28 rate limited, try again later' },
      suspension: null,
    })
    expect(site.limits.messagesPerMinute).toBeLessThan(N)
    expect(site.limits.connections).toBe(2)

    const listed = await cli(['queue', 'sites', '--data-dir', w.t.dataDir, ...w.t.databaseFlags])
    expect(listed.code).toBe(0)
    expect(listed.out).toMatch(/^SITE\s+QUEUED\s+CONN\s+MSG\/CONN\s+MSG\/MIN\s+RATE\/MIN\s+STATE/)
    expect(listed.out).toContain('slowed down (x1/2) until')
    const json = JSON.parse((await cli(['queue', 'sites', '--json', '--data-dir', w.t.dataDir, ...w.t.databaseFlags])).out)
    expect(json.find((s: any) => s.name === 'mx.throttle.example').throttle.level).toBe(1)

    const metrics = await w.t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(metrics.body).toContain('mailstead_site_throttle_level{site="mx.throttle.example"} 1')
    expect(metrics.body).toContain('mailstead_site_limit{site="mx.throttle.example",limit="connections"} 2')

    // Thirty minutes without a "slow down": a level comes back, here the last one.
    clock.advance(31 * MINUTE)
    await w.deliver()
    expect((await siteOf('mx.throttle.example')).throttle).toBeNull()
    expect(logged.some((line) => line.tag === 'SITE[recovering]')).toBe(true)
  })
})

describe('a site that says this server is blocked', () => {
  test('is suspended with a warning: its mail waits, never bounces, and goes once the suspension ends', async () => {
    await batch((i) => `user${i}@blocked.example`, 5)
    await w.deliver()
    const states = async () =>
      Object.fromEntries(
        (
          await w.t.app.db.selectFrom('deliveries').select(['state', 'attempts']).where('recipient_domain', '=', 'blocked.example').execute()
        ).map((row, i) => [i, `${row.state}/${row.attempts}`]),
      )
    // The first refusal suspends the site: what was in flight is deferred, the rest held without an attempt.
    expect(Object.values(await states()).every((state) => state.startsWith('deferred'))).toBe(true)
    expect(await w.t.app.db.selectFrom('suppressions').selectAll().where('email', 'like', '%@blocked.example').execute()).toEqual([])
    const site = await siteOf('mx.blocked.example')
    expect(site.suspension).toMatchObject({ reason: expect.stringContaining('zen.spamhaus.org') })
    expect(logged.find((line) => line.tag === 'SITE[suspended]')).toMatchObject({ level: 'warn', site: 'mx.blocked.example' })
    const refusedAt = blocking.offered.length

    // An hour later the site is still suspended: nothing is tried.
    clock.advance(60 * MINUTE)
    await w.deliver()
    expect(blocking.offered.length).toBe(refusedAt)

    blocked = false
    clock.advance(61 * MINUTE)
    for (let i = 0; i < 5; i++) {
      await w.deliver()
      clock.advance(MINUTE)
    }
    expect(blocking.received).toHaveLength(5)
    expect((await siteOf('mx.blocked.example')).suspension).toBeNull()
  })
})
