// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { reverseName } from '../../src/dns/blocklists.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { makeCertificate } from '../helpers/certificates.ts'
import { cli } from '../helpers/cli.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'
import { onPostgres } from '../helpers/postgres.ts'

const HOST = 'mx.mailstead.test'
const IP = '203.0.113.5'
let dns: FakeDns
let t: TestApp
let key: string
let certDir: string
const servers: Server[] = []
const sockets: Socket[] = []
let greeting: number
let silent: number
let closed: number

async function listen(onConnect: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
    onConnect(socket)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as { port: number }).port
}

/** Writes a certificate and its key for `names` into the temporary directory; their paths. */
async function certificateFiles(label: string, names: string[], options: { toDays?: number; fromDays?: number } = {}) {
  const { cert, key } = await makeCertificate(names, options)
  writeFileSync(join(certDir, `${label}.crt`), cert)
  writeFileSync(join(certDir, `${label}.key`), key, { mode: 0o600 })
  return ['--tls-cert', join(certDir, `${label}.crt`), '--tls-key', join(certDir, `${label}.key`)]
}

let good: string[]

beforeAll(async () => {
  dns = await new FakeDns().start()
  dns.records(HOST, { type: 'A', address: IP }).records(reverseName(IP), { type: 'PTR', domain: HOST })
  t = await createTestApp({ 'dns-servers': dns.address, 'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS), hostname: HOST })
  key = (await t.project()).secretKey
  const domain = (await t.request('POST', '/api/v1/domains', { key, body: { name: 'doctor.example.com', region: 'us-east-1' } })).body
  publishRecords(dns, domain.dnsRecords)
  await t.app.checker.check(domain.id)
  certDir = mkdtempSync(join(tmpdir(), 'mailstead-doctor-'))
  greeting = await listen((socket) => socket.write('220 sink.test ESMTP\r\n'))
  silent = await listen(() => {})
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closed = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  good = [
    ...['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', 'test-secret-test-secret-test-secret', '--hostname', HOST],
    ...['--dns-servers', dns.address, '--dns-timeout-ms', String(FAKE_DNS_TIMEOUT_MS), '--public-ips', IP],
    ...(await certificateFiles('good', [HOST])),
  ]
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  for (const server of servers) server.close()
  await t.close()
  await dns.stop()
})

const target = (port: number) => ['--outbound-check-target', `127.0.0.1:${port}`]

describe('mailstead doctor', () => {
  test('a good setup: every check ok, exit code 0, and /health sees the report it stored', async () => {
    const { code, out, err } = await cli(['doctor', ...good, ...target(greeting)])
    expect({ code, err }).toEqual({ code: 0, err: '' })
    const lines = out.split('\n')
    expect(lines[0]).toBe(`Mailstead doctor: ${HOST}, sending from ${IP}`)
    expect(out).toContain(`ok         ptr              ${IP} has the PTR ${HOST}, which resolves back to ${IP}.`)
    expect(out).toContain(`ok         spf              The SPF of mst.doctor.example.com (doctor.example.com's return path) lets ${IP} send.`)
    expect(out).toContain(`ok         outbound-smtp    127.0.0.1 port ${greeting} answered "220 sink.test ESMTP": outbound SMTP works.`)
    expect(out).toContain(`ok         tls-certificate  The certificate covers ${HOST} (DNS:${HOST}).`)
    expect(lines.at(-1)).toMatch(/^\d+ ok, 0 warnings, 0 failed$/)
    const checks = await t.request('GET', '/api/v1/server/checks', { key })
    expect(checks.body.ips).toEqual([IP])
    expect(checks.body.findings.map((f: { check: string }) => f.check)).toEqual(['public-ips', 'ptr', 'ptr-hostname', 'hostname', 'blocklist', 'blocklist', 'blocklist', 'spf'])
    expect((await t.request('GET', '/health')).body.warnings).toEqual([])
  })

  test('--json prints the report with counts', async () => {
    const { code, out } = await cli(['doctor', '--json', ...good, ...target(greeting)])
    expect(code).toBe(0)
    const report = JSON.parse(out)
    expect(report).toMatchObject({ hostname: HOST, ips: [IP], counts: { failed: 0, warning: 0, unchecked: 0 } })
    expect(report.findings.find((f: { check: string }) => f.check === 'outbound-smtp').status).toBe('ok')
  })

  test('a data directory others can read: a warning, with the chmod that mends it', async () => {
    chmodSync(t.dataDir, 0o755)
    try {
      const { code, out } = await cli(['doctor', '--json', ...good, ...target(greeting)])
      expect(code).toBe(0)
      const files = JSON.parse(out).findings.filter((f: { check: string }) => f.check === 'files')
      expect(files).toEqual([
        { check: 'files', subject: t.dataDir, status: 'warning', message: `${t.dataDir} (the data directory) is 755: other users on this machine can list and enter it.`, fix: `chmod 700 ${t.dataDir}` },
      ])
    } finally {
      chmodSync(t.dataDir, 0o700)
    }
  })

  // The SQLite database is a file in the data directory; on PostgreSQL there is none to check.
  test.skipIf(onPostgres)('a database others can read: a warning, with the chmod that mends it', async () => {
    const database = join(t.dataDir, 'mailstead.db')
    chmodSync(database, 0o644)
    try {
      const { code, out } = await cli(['doctor', '--json', ...good, ...target(greeting)])
      expect(code).toBe(0)
      const files = JSON.parse(out).findings.filter((f: { check: string }) => f.check === 'files')
      expect(files).toEqual([
        { check: 'files', subject: database, status: 'warning', message: `${database} (the database) is 644: other users on this machine can read it.`, fix: `chmod 600 ${database}` },
      ])
      expect(JSON.parse(out).findings.filter((f: { check: string }) => f.check === 'database')).toEqual([])
    } finally {
      chmodSync(database, 0o600)
    }
  })

  test.if(onPostgres)('on PostgreSQL: says the data is there, checks no database file, and still checks the secret', async () => {
    const secret = join(t.dataDir, 'secret')
    // Even a file of that name (a copy left behind, say) is not the database on PostgreSQL.
    const stray = join(t.dataDir, 'mailstead.db')
    writeFileSync(stray, '', { mode: 0o644 })
    chmodSync(stray, 0o644)
    const secretMode = existsSync(secret) ? statSync(secret).mode & 0o777 : undefined
    if (secretMode === undefined) writeFileSync(secret, 'x'.repeat(40), { mode: 0o644 })
    chmodSync(secret, 0o644)
    try {
      const { code, out } = await cli(['doctor', '--json', ...good, ...target(greeting)])
      expect(code).toBe(0)
      const findings = JSON.parse(out).findings as Record<string, unknown>[]
      const url = new URL(t.databaseFlags[1]!)
      const where = `postgres://${url.username}@${url.hostname}:${url.port || '5432'}${url.pathname}`
      expect(findings.filter((f) => f.check === 'database')).toEqual([
        {
          check: 'database',
          subject: where,
          status: 'ok',
          message: `The data is in PostgreSQL (${where}): who may read it is set by PostgreSQL's roles and pg_hba.conf, not by files in the data directory.`,
        },
      ])
      expect(findings.filter((f) => f.check === 'files')).toEqual([
        { check: 'files', subject: secret, status: 'warning', message: `${secret} (the secret that signs tokens and seals keys) is 644: other users on this machine can read it.`, fix: `chmod 600 ${secret}` },
      ])
      const text = await cli(['doctor', ...good, ...target(greeting)])
      expect(text.out).toContain(`ok         database         The data is in PostgreSQL (${where})`)
      expect(text.out).not.toContain('mailstead.db')
    } finally {
      rmSync(stray)
      if (secretMode === undefined) rmSync(secret)
      else chmodSync(secret, secretMode)
    }
  })

  test('outbound port 25 closed: FAILED with the fix, exit code 1', async () => {
    const { code, out, err } = await cli(['doctor', ...good, ...target(closed)])
    expect(code).toBe(1)
    expect(out).toContain(`FAILED     outbound-smtp    Could not reach 127.0.0.1 port ${closed}: connection refused.`)
    expect(out).toContain('fix: Many VPS providers block outgoing port 25 on new servers')
    expect(out.split('\n').at(-1)).toMatch(/^\d+ ok, 0 warnings, 1 failed$/)
    expect(err).toBe('error: 1 check failed')
  })

  test('a server that never greets fails within --timeout', async () => {
    const started = performance.now()
    const { code, out } = await cli(['doctor', ...good, ...target(silent), '--timeout', '0.5'])
    expect(performance.now() - started).toBeLessThan(3000)
    expect(code).toBe(1)
    expect(out).toContain(`port ${silent}: it connected, but no greeting came within 0.5 s`)
  })

  test('a certificate for another name, or expired, fails; one that expires soon is a warning only', async () => {
    const other = await cli(['doctor', ...good, ...target(greeting), ...(await certificateFiles('other', ['other.example.org']))])
    expect(other.code).toBe(1)
    expect(other.out).toContain(`FAILED     tls-certificate  The certificate's names (DNS:other.example.org) do not cover ${HOST}`)
    const expired = await cli(['doctor', ...good, ...target(greeting), ...(await certificateFiles('expired', [HOST], { fromDays: -90, toDays: -1 }))])
    expect(expired.code).toBe(1)
    expect(expired.out).toMatch(/FAILED {5}tls-certificate {2}The certificate expired on \d{4}-\d\d-\d\d\./)
    const soon = await cli(['doctor', ...good, ...target(greeting), ...(await certificateFiles('soon', [HOST], { toDays: 6 }))])
    expect(soon.code).toBe(0)
    expect(soon.out).toMatch(/WARNING {4}tls-certificate {2}The certificate expires on \d{4}-\d\d-\d\d, in [4-6] days\./)
  })

  test('an address without a PTR fails, and /health then warns of it', async () => {
    const bare = '203.0.113.77'
    const { code, out } = await cli(['doctor', ...good, '--public-ips', bare, ...target(greeting)])
    expect(code).toBe(1)
    expect(out).toContain(`FAILED     ptr              ${bare} has no PTR record (reverse DNS)`)
    expect(out).toContain(`fix: Set the reverse DNS (PTR) of ${bare} to ${HOST} in your VPS or hosting provider's control panel.`)
    const health = await t.request('GET', '/health')
    expect(health.body.status).toBe('ok')
    expect(health.body.warnings).toContain(`${bare} has no PTR record (reverse DNS): large providers refuse or junk mail from such addresses.`)
  })

  test('a --timeout that is not a number of seconds is refused', async () => {
    const { code, err } = await cli(['doctor', ...good, '--timeout', 'soon'])
    expect(code).toBe(2)
    expect(err).toBe('error: --timeout must be a number of seconds from 0.1 to 300')
  })
})
