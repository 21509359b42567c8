// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { describeConfig, loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createTestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { waitFor } from '../helpers/until.ts'
import { createWorld, type World } from '../helpers/world.ts'

const TOKEN = 'metrics-token-for-the-tests-0123456789'
/** A sample line of the text format: name, optional {label="value",...}, a value. */
const SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*")*\})? (NaN|[+-]Inf|-?\d+(\.\d+)?(e[+-]?\d+)?)$/

let w: World
let relayPort: number
const logLines: any[] = []

beforeAll(async () => {
  w = await createWorld({
    started: true,
    settings: { 'metrics-token': TOKEN, 'relay-port': '0' },
    mx: { onRcpt: (to) => (to.startsWith('nobody@') ? { code: 550, message: '5.1.1 No such user' } : undefined) },
  })
  relayPort = w.t.app.listeners()!.relay.port!
})

afterAll(() => w.close())

const scrape = (token = TOKEN) => w.t.request('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } })

/** The value of one series on the page (0 when it is not there). */
async function value(series: string): Promise<number> {
  const page: string = (await scrape()).body
  const line = page.split('\n').find((l) => l.startsWith(series + ' '))
  return line ? Number(line.slice(series.length + 1)) : 0
}


const send = (to: string) =>
  w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'Ada <ada@sender.example.com>', to, subject: 'Hello', html: '<p>Hi</p>' } })

describe('GET /metrics', () => {
  test('is not there (404) when no metricsToken is configured', async () => {
    const t = await createTestApp()
    try {
      expect((await t.request('GET', '/metrics')).status).toBe(404)
      expect((await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404)
    } finally {
      await t.close()
    }
  })

  test.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-wrong-token-wrong-token' }],
    ['the token with a character changed', { authorization: `Bearer ${TOKEN.slice(0, -1)}X` }],
    ['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, 10)}` }],
    ['an API key', { authorization: 'Bearer sk_' + 'x'.repeat(43) }],
    ['the token as Basic credentials', { authorization: `Basic ${btoa(`x:${TOKEN}`)}` }],
  ])('answers 401 with %s', async (_, headers) => {
    const response = await w.t.request('GET', '/metrics', { headers })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
    expect(response.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' })
  })

  test('answers 200 with the token: the Prometheus text format, version 0.0.4', async () => {
    const response = await scrape()
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const page: string = response.body
    expect(page.endsWith('\n')).toBe(true)
    for (const line of page.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line).toMatch(SAMPLE)
    for (const [name, type] of [
      ['mailstead_deliveries', 'gauge'],
      ['mailstead_deliveries_settled_total', 'counter'],
      ['mailstead_delivery_duration_seconds', 'histogram'],
      ['mailstead_delivery_queue_wait_seconds', 'histogram'],
      ['mailstead_domain_checks_total', 'counter'],
      ['mailstead_http_requests_total', 'counter'],
      ['mailstead_http_request_duration_seconds', 'histogram'],
      ['mailstead_smtp_sessions_total', 'counter'],
      ['mailstead_smtp_messages_received_total', 'counter'],
      ['mailstead_uptime_seconds', 'gauge'],
      ['mailstead_resident_memory_bytes', 'gauge'],
      ['mailstead_event_loop_lag_max_seconds', 'gauge'],
    ]) {
      expect(page).toContain(`# TYPE ${name} ${type}\n`)
      expect(page).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'))
    }
    expect(await value('mailstead_uptime_seconds')).toBeGreaterThan(0)
    expect(await value('mailstead_resident_memory_bytes')).toBeGreaterThan(1_000_000)
  })

  test('is not in the OpenAPI document', async () => {
    const document = (await w.t.request('GET', '/swagger/json')).body
    expect(Object.keys(document.paths)).not.toContain('/metrics')
  })
})

describe('what the numbers count', () => {
  test('an HTTP request under its route pattern, never its path; one no route took as unmatched', async () => {
    const id = 'no-such-email-0123456789'
    expect((await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).status).toBe(404)
    expect((await w.t.request('GET', `/no/such/${id}`)).status).toBe(404)
    const page: string = (await scrape()).body
    expect(page).toContain('mailstead_http_requests_total{method="GET",route="/api/v1/emails/:emailId",status="404"} 1\n')
    expect(page).toContain('mailstead_http_requests_total{method="GET",route="unmatched",status="404"} 1\n')
    expect(page).toContain('mailstead_http_request_duration_seconds_count{method="GET",route="/api/v1/emails/:emailId"} 1\n')
    expect(page).not.toContain(id)
    // The domain the world added, and the scrapes themselves.
    expect(page).toContain('mailstead_http_requests_total{method="POST",route="/api/v1/domains",status="200"} 1\n')
    expect(await value('mailstead_http_requests_total{method="GET",route="/metrics",status="401"}')).toBeGreaterThan(0)
  })

  test('a request refused by its declared length (413, before its body is read) counts under its route, and is timed from its arrival', async () => {
    // The limit is the matched route's (src/http/request-body.ts), so the refusal comes once the router has matched: /v1/track/ is /v1/track.
    const oversized = new Request('http://localhost/v1/track/', { method: 'POST', headers: { 'content-length': String(1024 ** 3), 'content-type': 'application/json' }, body: '{}' })
    expect((await w.t.app.handle(oversized)).status).toBe(413)
    expect(await value('mailstead_http_requests_total{method="POST",route="/v1/track",status="413"}')).toBe(1)
    expect(await value('mailstead_http_request_duration_seconds_sum{method="POST",route="/v1/track"}')).toBeLessThan(1)
    const unrouted = new Request('http://localhost/v1/nowhere', { method: 'POST', headers: { 'content-length': String(1024 ** 3), 'content-type': 'application/json' }, body: '{}' })
    expect((await w.t.app.handle(unrouted)).status).toBe(404)
    expect(await value('mailstead_http_requests_total{method="POST",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1)
  })

  test('deliveries: queue depth, then each settled with its outcome and domain, and its duration', async () => {
    const before = {
      delivered: await value('mailstead_deliveries_settled_total{outcome="delivered",domain="example.net"}'),
      bounced: await value('mailstead_deliveries_settled_total{outcome="bounced",domain="example.net"}'),
      attempts: await value('mailstead_delivery_duration_seconds_count{outcome="delivered"}'),
    }
    await w.t.app.deliveries.stop()
    expect((await send('ann@example.net')).status).toBe(200)
    expect((await send('nobody@example.net')).status).toBe(200)
    expect(await value('mailstead_deliveries{state="queued"}')).toBe(2)
    expect(await value('mailstead_deliveries{state="sending"}')).toBe(0)
    await w.t.app.deliveries.start()
    await w.deliver()
    expect(await value('mailstead_deliveries{state="queued"}')).toBe(0)
    expect(await value('mailstead_deliveries_settled_total{outcome="delivered",domain="example.net"}')).toBe(before.delivered + 1)
    expect(await value('mailstead_deliveries_settled_total{outcome="bounced",domain="example.net"}')).toBe(before.bounced + 1)
    expect(await value('mailstead_delivery_duration_seconds_count{outcome="delivered"}')).toBe(before.attempts + 1)
    expect(await value('mailstead_delivery_duration_seconds_bucket{outcome="delivered",le="+Inf"}')).toBe(before.attempts + 1)
    expect(await value('mailstead_delivery_queue_wait_seconds_count')).toBeGreaterThanOrEqual(2)
  })

  test('a DNS check of a domain, by the status it left the domain in', async () => {
    const before = await value('mailstead_domain_checks_total{status="SUCCESS"}')
    expect(before).toBeGreaterThanOrEqual(1)
    await w.t.app.checker.check(w.domain.id)
    expect(await value('mailstead_domain_checks_total{status="SUCCESS"}')).toBe(before + 1)
  })

  test('SMTP sessions by listener and result, and the messages taken', async () => {
    const sessions = (result: string) => value(`mailstead_smtp_sessions_total{listener="relay",result="${result}"}`)
    const before = { accepted: await sessions('accepted'), rejected: await sessions('rejected'), empty: await sessions('empty') }
    const received = await value('mailstead_smtp_messages_received_total{listener="relay"}')
    await smtpSession(async (c) => {
      await new Promise((resolve) => c.login({ user: 'app', pass: w.key }, resolve))
      const message = 'From: ada@sender.example.com\r\nTo: bob@example.net\r\nSubject: hi\r\n\r\nhi\r\n'
      return new Promise((resolve) => c.send({ from: 'ada@sender.example.com', to: ['bob@example.net'] }, message, resolve))
    })
    await smtpSession((c) => new Promise((resolve) => c.login({ user: 'app', pass: 'sk_' + 'x'.repeat(43) }, resolve)))
    await smtpSession(async () => {})
    await waitFor(async () => (await sessions('empty')) === before.empty + 1 && (await sessions('rejected')) === before.rejected + 1, 'the session counts', 3000)
    expect(await sessions('accepted')).toBe(before.accepted + 1)
    expect(await value('mailstead_smtp_messages_received_total{listener="relay"}')).toBe(received + 1)
  })
})

describe('logs', () => {
  test('one HTTP line per request at debug: method, route pattern, status, ms, request id; no path, no key', async () => {
    const t = await createTestApp({ 'log-level': 'debug' }, { logger: createLogger('debug', (line) => logLines.push(JSON.parse(line))) })
    try {
      const project = await t.project()
      const sent = await t.request('GET', '/api/v1/emails/secret-looking-id-42', { key: project.secretKey, headers: { 'x-request-id': 'req-from-client' } })
      expect(sent.status).toBe(404)
      const http = logLines.filter((l) => l.tag === 'HTTP')
      expect(http).toHaveLength(1)
      expect(http[0]).toMatchObject({ level: 'debug', method: 'GET', route: '/api/v1/emails/:emailId', status: 404, requestId: 'req-from-client' })
      expect(typeof http[0].ms).toBe('number')
      const all = JSON.stringify(logLines)
      expect(all).not.toContain('secret-looking-id-42')
      expect(all).not.toContain(project.secretKey)
    } finally {
      await t.close()
    }
  })

  test('the CLI writes the log lines of what it runs to standard error: errors only, unless logLevel is set', async () => {
    const t = await createTestApp()
    try {
      const project = await t.project()
      const flags = ['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', 'test-secret-test-secret-test-secret', '--dns-servers', '127.0.0.1:9', '--dns-timeout-ms', '100']
      expect((await cli(['domain', 'add', 'quiet.example.com', '--project', String(project.id), ...flags])).code).toBe(0)
      const quiet = await cli(['domain', 'verify', 'quiet.example.com', ...flags])
      expect(quiet.code).toBe(0)
      expect(quiet.err).toBe('')
      const told = await cli(['domain', 'verify', 'quiet.example.com', ...flags], { env: { MAILSTEAD_LOG_LEVEL: 'info' } })
      const lines = told.err.split('\n').map((line) => JSON.parse(line))
      expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', tag: expect.stringMatching(/^DOMAIN\[/), msg: 'quiet.example.com checked' }))
    } finally {
      await t.close()
    }
  })

  test('the token is a secret: config show masks it, a refused value is not echoed', () => {
    const loaded = loadConfig({ env: { MAILSTEAD_METRICS_TOKEN: TOKEN, MAILSTEAD_DATA_DIR: w.t.dataDir } })
    const shown = describeConfig(loaded).find((s) => s.key === 'metricsToken')!
    expect(shown).toMatchObject({ env: 'MAILSTEAD_METRICS_TOKEN', value: '********', source: 'environment' })
    expect(JSON.stringify(describeConfig(loaded))).not.toContain(TOKEN)
    expect(() => loadConfig({ env: { MAILSTEAD_METRICS_TOKEN: 'short-secret', MAILSTEAD_DATA_DIR: w.t.dataDir } })).toThrow(/metricsToken .*\(hidden\)/)
  })
})

async function smtpSession(steps: (c: SMTPConnection) => Promise<unknown>) {
  const connection = new SMTPConnection({ host: '127.0.0.1', port: relayPort, tls: { rejectUnauthorized: false } } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    await steps(connection)
  } finally {
    connection.quit()
  }
  await new Promise((resolve) => connection.once('end', resolve))
}
