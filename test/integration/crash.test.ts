import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { openDatabase } from '../../src/db/client.ts'
import { freePort, startServer } from '../helpers/child.ts'
import { cli } from '../helpers/cli.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns } from '../helpers/fake-dns.ts'
import { FakeMx } from '../helpers/fake-mx.ts'

const SECRET = 'crash-test-secret-crash-test-secret-0'
let dns: FakeDns
let mx: FakeMx
let dir: string
let child: Subprocess | undefined

beforeAll(async () => {
  dns = await new FakeDns().start()
  mx = await new FakeMx({ delayMs: 20 }).start('127.0.0.2')
  dns.records('example.net', { type: 'MX', exchange: 'mx.example.net', priority: 10 }).records('mx.example.net', { type: 'A', address: '127.0.0.2' })
  dir = mkdtempSync(join(tmpdir(), 'mailstead-crash-'))
})

afterAll(async () => {
  child?.kill('SIGKILL')
  await mx.stop()
  await dns.stop()
  rmSync(dir, { recursive: true, force: true })
})

test('killed with SIGKILL in the middle of a run, the server loses no accepted message when it starts again', async () => {
  const flags = [
    '--data-dir', dir, '--secret', SECRET, '--dns-servers', dns.address, '--dns-timeout-ms', '300', '--hostname', 'mx.mailstead.test',
    '--delivery-port', String(mx.port), '--send-rate-per-second', '10000', '--log-level', 'error', '--smtp-timeout-seconds', '2',
    '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off',
  ]
  const project = JSON.parse((await cli(['project', 'create', '--name', 'Crash', '--json', ...flags])).out)
  const port = await freePort()
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))

  child = await startServer(flags, port)
  const domain = (await api('POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })).body
  publishRecords(dns, domain.dnsRecords)
  await api('PUT', `/api/v1/domains/${domain.id}/verify`)
  for (let i = 0; i < 100 && (await api('GET', `/api/v1/domains/${domain.id}`)).body.status !== 'SUCCESS'; i++) await Bun.sleep(20)

  const recipients = Array.from({ length: 300 }, (_, i) => `user${i}@example.net`)
  const accepted: string[] = []
  for (let i = 0; i < recipients.length; i += 100) {
    const batch = recipients.slice(i, i + 100).map((to) => ({ from: 'app@sender.example.com', to, subject: `Hello ${to}`, text: 'Hi' }))
    const answer = await api('POST', '/api/v1/emails/batch', batch)
    expect(answer.status).toBe(200)
    accepted.push(...answer.body.data.map((d: { emailId: string }) => d.emailId))
  }
  for (let i = 0; i < 500 && mx.received.length < 40; i++) await Bun.sleep(10)
  child.kill('SIGKILL')
  await child.exited
  const atKill = mx.received.length
  expect(atKill).toBeGreaterThanOrEqual(40)
  expect(atKill).toBeLessThan(300)

  child = await startServer(flags, port)
  const database = openDatabase(join(dir, 'mailstead.db'))
  try {
    let states: Record<string, number> = {}
    for (let i = 0; i < 300; i++) {
      const rows = await database.db.selectFrom('deliveries').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('state').execute()
      states = Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]))
      if (states.delivered === 300) break
      await Bun.sleep(50)
    }
    expect(states).toEqual({ delivered: 300 })
    const emails = await database.db.selectFrom('emails').select('id').execute()
    expect(emails.map((e) => e.id).sort()).toEqual([...accepted].sort())
  } finally {
    await database.close()
  }
  const got = new Set(mx.received.flatMap((m) => m.to))
  for (const to of recipients) expect(got.has(to)).toBe(true)
  // Only what was in flight at the kill can have arrived twice.
  expect(mx.received.length - recipients.length).toBeLessThanOrEqual(100)
})
