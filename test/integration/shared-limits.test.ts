// @database
import { afterEach, describe, expect, test } from 'bun:test'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { generateKey } from '../../src/core/projects/keys.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'
import { HttpSocket } from '../helpers/http-socket.ts'
import { until } from '../helpers/until.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'
import { FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'

/*
 * The rate limits are the database's, not a process's: apps that share a database (a SQLite
 * file, or one PostgreSQL database when the suite runs there) allow together what one allows.
 */

const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
})

/** `count` apps on one database: the first made it and removes it at the end, the others only stop. */
async function appsOnOneDatabase(count: number, settings: Record<string, string>, options: { clock?: ManualClock } = {}): Promise<TestApp[]> {
  const first = await createTestApp(settings, options)
  closing.push(() => first.close())
  const apps = [first]
  while (apps.length < count) apps.push(await alongside(first, settings, options))
  return apps
}

/** Another app on `first`'s database, as another process on the same machine or PostgreSQL. */
async function alongside(first: TestApp, settings: Record<string, string>, options: { clock?: ManualClock } = {}): Promise<TestApp> {
  const url = first.databaseFlags[1]
  const other = await createTestApp({ ...settings, 'data-dir': first.dataDir, ...(url && { 'database-url': url }) }, options)
  closing.push(() => other.app.stop())
  return other
}

const wrongKey = generateKey('secret').key

/** A request from `address` on a connection of its own to `t`, and how long it took. */
async function timed(t: TestApp, address: string, key: string) {
  const socket = await HttpSocket.open(Number(new URL(t.app.url).port), address)
  const began = Date.now()
  try {
    const response = await socket.request('GET', '/contacts', { key })
    return { status: response.status, ms: Date.now() - began }
  } finally {
    socket.close()
  }
}

describe('the request budget across three apps', () => {
  test('six requests a minute in all: the sixth passes through whichever app, the seventh is refused by every one', async () => {
    const clock = new ManualClock(Date.parse('2026-11-01T12:00:10Z'))
    const apps = await appsOnOneDatabase(3, { 'rate-limit-per-minute': '6' }, { clock })
    const { secretKey } = await apps[0]!.project('Shared')
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push((await apps[i % 3]!.request('GET', '/contacts', { key: secretKey })).status)
    expect(statuses).toEqual(Array(6).fill(200))
    for (const t of apps) {
      const refused = await t.request('GET', '/contacts', { key: secretKey })
      expect(refused.status).toBe(429)
      expect(refused.headers.get('x-ratelimit-scope')).toBe('secret-key')
      expect(refused.headers.get('retry-after')).toBe('61')
    }
    // A minute after the first, the budget is there again, through any of them.
    clock.advance(61_000)
    expect((await apps[2]!.request('GET', '/contacts', { key: secretKey })).status).toBe(200)
  })

  test('requests at once through three started apps: no more than the limit pass, and after their leftovers go back, exactly the limit', async () => {
    const apps = await appsOnOneDatabase(3, { 'rate-limit-per-minute': '60' })
    for (const t of apps) await t.app.start()
    const { secretKey } = await apps[0]!.project('Busy')
    const burst = () => Promise.all(Array.from({ length: 30 }, (_, i) => apps[i % 3]!.request('GET', '/contacts', { key: secretKey })))
    let passed = 0
    for (let round = 0; round < 3; round++) passed += (await burst()).filter((response) => response.status === 200).length
    expect(passed).toBeLessThanOrEqual(60)
    // Each app gives back within a second what it took and did not spend; a refusal is believed for a second.
    // So, asked on, the three let through what is left of the limit within about two seconds.
    let asked = 0
    await until(
      async () => ((await apps[asked++ % 3]!.request('GET', '/contacts', { key: secretKey })).status === 200 ? ++passed : passed),
      (n) => n >= 60,
      5000,
    )
    expect(passed).toBe(60)
    for (const t of apps) expect((await t.request('GET', '/contacts', { key: secretKey })).status).toBe(429)
  }, 20_000)
})

describe('the login throttle across two apps', () => {
  test('failed keys through one app slow the next login from that address through the other, over HTTP and SMTP AUTH', async () => {
    const settings = { 'unauthenticated-rate-limit-per-minute': '1000', 'relay-port': '0', 'relay-allow-insecure-auth': 'true' }
    const [first, second] = await appsOnOneDatabase(2, settings)
    await first!.app.start()
    await second!.app.start()
    const { secretKey } = await first!.project('Beside a guesser')

    for (let i = 0; i < 3; i++) expect((await timed(first!, '127.0.0.61', wrongKey)).status).toBe(401)
    // Three failures through the first: a login from that address through the second waits 0.5 s, and then is served.
    const slowed = await timed(second!, '127.0.0.61', secretKey)
    expect(slowed.status).toBe(200)
    expect(slowed.ms).toBeGreaterThanOrEqual(450)
    const elsewhere = await timed(second!, '127.0.0.62', secretKey)
    expect(elsewhere.status).toBe(200)
    expect(elsewhere.ms).toBeLessThan(slowed.ms)

    for (let i = 0; i < 4; i++) expect((await timed(first!, '127.0.0.63', wrongKey)).status).toBe(401)
    // Four failures over HTTP through the first: SMTP AUTH from that address on the second waits 1 s.
    const began = Date.now()
    expect(await relayLogin(second!, '127.0.0.63', secretKey)).toBe('ok')
    expect(Date.now() - began).toBeGreaterThanOrEqual(900)
  }, 30_000)
})

/** Logs in to `t`'s relay (port 587, AUTH without TLS allowed) from `localAddress`: 'ok' or the refusal. */
async function relayLogin(t: TestApp, localAddress: string, pass: string): Promise<string> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port: t.app.listeners()!.relay.port!, localAddress, ignoreTLS: true } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    return await new Promise<string>((resolve) => connection.login({ user: 'app', pass }, (error) => resolve(error ? String((error as any).response) : 'ok')))
  } finally {
    connection.quit()
  }
}

describe('the send rate across two apps', () => {
  test("what one app's delivery loop spent of a project's rate, the other's cannot spend again", async () => {
    const clock = new ManualClock(Date.parse('2026-11-01T12:00:00.100Z'))
    const w = await createWorld({ clock })
    closing.push(() => w.close())
    const other = await alongside(w.t, worldSettings(w), { clock })
    await w.t.app.db.updateTable('projects').set({ send_rate_per_second: 2 }).where('id', '=', w.projectId).execute()
    const send = async (t: TestApp, n: number) => {
      for (let i = 0; i < n; i++) {
        const sent = await t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'a@sender.example.com', to: `rated${i}@example.net`, subject: 'x', text: 'y' } })
        expect(sent.status).toBe(200)
      }
    }
    const delivered = async () => (await w.t.app.db.selectFrom('deliveries').select('id').where('project_id', '=', w.projectId).where('state', '=', 'delivered').execute()).length

    await send(w.t, 2)
    await w.deliver()
    expect(await delivered()).toBe(2)
    // The first app's loop stops; the other's takes the next mail, from the bucket the first emptied.
    await w.t.app.deliveries.stop()
    await send(other, 3)
    await other.app.deliveries.start()
    await other.app.deliveries.drain()
    expect(await delivered()).toBe(2)
    clock.advance(500)
    await other.app.deliveries.drain()
    expect(await delivered()).toBe(3)
    clock.advance(1000)
    await other.app.deliveries.drain()
    expect(await delivered()).toBe(5)
  })
})

/** The settings of a world's app (test/helpers/world.ts) that another app on its database needs to deliver alike. */
const worldSettings = (w: World): Record<string, string> => ({
  'dns-servers': w.dns.address,
  'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS),
  hostname: HOSTNAME,
  'delivery-port': String(w.mx.port),
  'delivery-allow-private-targets': 'true',
  'smtp-timeout-seconds': '1',
  'delivery-attempt-timeout-seconds': '5',
  'send-rate-per-second': '10000',
})
