// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:tls'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { generate } from 'selfsigned'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { until } from '../helpers/until.ts'

const apps: TestApp[] = []
afterAll(async () => {
  for (const app of apps) await app.close()
})

async function started(settings: Record<string, string>) {
  const t = await createTestApp(settings)
  apps.push(t)
  await t.app.start()
  return t
}

/** The certificate a TLS listener presents, by fingerprint. */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256)
      socket.destroy()
    })
    socket.on('error', reject)
  })
}

const certificate = async (name: string) => {
  const made = await generate([{ name: 'commonName', value: name }], { keySize: 2048 } as never)
  return { key: made.private, cert: made.cert, fingerprint: new (await import('node:crypto')).X509Certificate(made.cert).fingerprint256 }
}

describe('starting', () => {
  test('warns when the host name is not fully qualified, and starts all the same; a good one gets no warning', async () => {
    for (const [hostname, warned] of [['mailbox', true], ['mail.example.test', false]] as const) {
      const logs: string[] = []
      const t = await createTestApp({ hostname }, { logger: createLogger('info', (line) => logs.push(line)) })
      apps.push(t)
      await t.app.start()
      expect((await t.request('GET', '/health')).status).toBe(200)
      expect(logs.some((line) => line.includes('MAILSTEAD_HOSTNAME is \\"mailbox\\", not a fully qualified name'))).toBe(warned)
    }
  })
})

describe('the SMTP listeners', () => {
  test('a port that cannot be bound stops only that listener; /health is degraded (503), and so is `mailstead health`, and the rest runs', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const taken = (blocker.address() as { port: number }).port
    try {
      const t = await started({ 'mx-port': '0', 'relay-port': String(taken) })
      const health = await t.request('GET', '/health')
      expect(health.status).toBe(503)
      expect(health.body.status).toBe('degraded')
      expect(health.body.problems).toEqual([expect.stringMatching(new RegExp(`^the relay SMTP listener is down \\(port ${taken}\\): .*EADDRINUSE`))])
      expect(health.body.listeners.relay).toMatchObject({ state: 'down', port: taken, error: expect.stringContaining('EADDRINUSE') })
      expect(health.body.listeners.mx).toMatchObject({ state: 'up' })
      expect(health.body.listeners.relayTls).toEqual({ state: 'off' })
      expect((await fetch(`${t.app.url}/health`)).status).toBe(503)
      const port = new URL(t.app.url).port
      const command = await cli(['health'], { env: { MAILSTEAD_HTTP_HOST: '127.0.0.1', MAILSTEAD_HTTP_PORT: port, MAILSTEAD_DATA_DIR: t.dataDir } })
      expect(command.code).not.toBe(0)
      expect(command.err).toContain('is degraded: the relay SMTP listener is down')
    } finally {
      blocker.close()
    }
  })

  test('without a configured certificate: a self-signed one is generated into the data directory, and the TLS relay stays off', async () => {
    const t = await started({ 'relay-port': '0', 'relay-tls-port': '0' })
    expect(existsSync(join(t.dataDir, 'tls', 'self-signed.crt'))).toBe(true)
    expect(t.app.listeners()!.relayTls).toEqual({ state: 'off' })
  })

  test('the configured certificate is presented, and a renewed one is picked up without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailstead-tls-'))
    const [first, second] = [await certificate('one.example'), await certificate('two.example')]
    writeFileSync(join(dir, 'cert.pem'), first.cert)
    writeFileSync(join(dir, 'key.pem'), first.key)
    const t = await started({ 'relay-tls-port': '0', 'tls-cert': join(dir, 'cert.pem'), 'tls-key': join(dir, 'key.pem') })
    const port = t.app.listeners()!.relayTls.port!
    expect(await presented(port)).toBe(first.fingerprint)
    writeFileSync(join(dir, 'key.pem'), second.key)
    writeFileSync(join(dir, 'cert.pem'), second.cert)
    expect(await until(() => presented(port), (fingerprint) => fingerprint === second.fingerprint, 6000, 100)).toBe(second.fingerprint)
  })

  test('failed logins are slowed after the third (a password of a key\'s shape: anything else is no guess at a key, and is not counted)', async () => {
    const t = await started({ 'relay-port': '0', 'relay-allow-insecure-auth': 'true' })
    const port = t.app.listeners()!.relay.port!
    const attempt = async () => {
      const connection = new SMTPConnection({ host: '127.0.0.1', port, ignoreTLS: true } as never)
      connection.on('error', () => {})
      await new Promise<void>((resolve) => connection.connect(() => resolve()))
      const started = performance.now()
      await new Promise((resolve) => connection.login({ user: 'x', pass: `sk_${'w'.repeat(43)}` }, resolve))
      connection.close()
      return performance.now() - started
    }
    const times = [await attempt(), await attempt(), await attempt(), await attempt()]
    expect(times.slice(0, 3).every((ms) => ms < 300)).toBe(true)
    expect(times[3]).toBeGreaterThanOrEqual(450)
  })
})
