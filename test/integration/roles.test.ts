// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { cli } from '../helpers/cli.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'
import { until, waitFor } from '../helpers/until.ts'

const closing: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close()
})

/** Another process's app on the same data (directory, or PostgreSQL database) as `t`, with `role`. */
async function sameData(t: TestApp, w: World, role: string): Promise<TestApp> {
  const url = t.databaseFlags[1]
  const other = await createTestApp({
    'data-dir': t.dataDir,
    ...(url && { 'database-url': url }),
    role,
    'dns-servers': w.dns.address,
    'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS),
    hostname: 'mx.mailstead.test',
    'delivery-port': String(w.mx.port),
    'delivery-allow-private-targets': 'true',
    'send-rate-per-second': '10000',
  })
  // Its close would remove the data under the first one: it only stops.
  closing.push({ close: () => other.app.stop() })
  return other
}

const send = (w: World, to: string) =>
  w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'app@sender.example.com', to, subject: 'Roles', text: 'Who sends this?' } })

describe('--role splits the work between processes on the same data', () => {
  test('an http process takes the mail and sends none of it; a delivery process on the same data sends it', async () => {
    const w = await createWorld({ settings: { role: 'http', 'mx-port': '0' }, started: true })
    closing.push(w)
    const sent = await send(w, 'split@example.net')
    expect(sent.status).toBe(200)
    // A delivery process would have taken it at once (its commit wakes the loop): 1.5 s is ample.
    await Bun.sleep(1500)
    expect(w.mx.received).toHaveLength(0)
    // Not an SMTP process: its listeners stay off though a port is set.
    expect(w.t.app.listeners()).toBeUndefined()

    const delivery = await sameData(w.t, w, 'delivery')
    await delivery.app.start()
    await waitFor(() => w.mx.received.length > 0, 'the delivery process to send it')
    expect(w.mx.received.map((m) => m.to)).toEqual([['split@example.net']])
    const status = async () => (await w.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: w.key })).body.deliveries?.[0]?.state
    expect(await until(status, (state) => state === 'delivered', 5000)).toBe('delivered')
  })

  test('a process without the http role answers /health and /metrics only, with a 404 that says why', async () => {
    const t = await createTestApp({ role: 'delivery,scheduler', 'metrics-token': 'metrics-token-metrics-token' })
    closing.push(t)
    await t.app.start()
    const health = await fetch(`${t.app.url}/health`)
    expect(health.status).toBe(200)
    const metrics = await fetch(`${t.app.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-metrics-token' } })
    expect(metrics.status).toBe(200)
    const project = await t.project()
    const api = await fetch(`${t.app.url}/api/v1/contacts`, { headers: { authorization: `Bearer ${project.secretKey}` } })
    expect(api.status).toBe(404)
    expect((await api.json()) as object).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('role setting (MAILSTEAD_ROLE) leaves out http') })
  })

  test.each([['http,mail', 'http, smtp, delivery, scheduler'], [',', 'http, smtp, delivery, scheduler']])('role=%p is refused with what is allowed', async (role, allowed) => {
    const result = await cli(['config', 'show', '--data-dir', '/tmp/mailstead-roles-unused', '--role', role])
    expect(result.code).not.toBe(0)
    expect(result.err).toContain('role')
    expect(result.err).toContain(allowed)
  })
})
