// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { listKeys } from '../../src/core/projects/projects.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { mailsteadChild } from '../helpers/cli-child.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'
import { until } from '../helpers/until.ts'

/*
 * What processes keep in memory (accepted keys, their projects) must not outlive a change made
 * elsewhere: a revoked key, a disabled project or a domain that lost its verification is refused
 * by every process on the database within 5 seconds. Two apps share the world's database (a
 * SQLite file, or one PostgreSQL database when the suite runs there); keys and projects are
 * changed by the CLI in a process of its own, as an operator does, and the domain by the first
 * app's DNS checker.
 */

const WITHIN_MS = 5000

let w: World
let other: TestApp
let flags: string[]

beforeAll(async () => {
  w = await createWorld({ started: true })
  const url = w.t.databaseFlags[1]
  other = await createTestApp({
    'data-dir': w.t.dataDir,
    ...(url && { 'database-url': url }),
    'dns-servers': w.dns.address,
    hostname: HOSTNAME,
    'delivery-port': String(w.mx.port),
    'delivery-allow-private-targets': 'true',
  })
  await other.app.start()
  flags = ['--data-dir', w.t.dataDir, ...w.t.databaseFlags, '--secret', 'test-secret-test-secret-test-secret', '--dns-servers', '127.0.0.1:9']
})

afterAll(async () => {
  await other.app.stop()
  await w.close()
})

/** Asks `ask` again until `refused` says so or WITHIN_MS pass; answers the last answer and when it came. */
async function refusedWithin<T>(ask: () => Promise<T>, refused: (answer: T) => boolean): Promise<{ answer: T; ms: number }> {
  const began = Date.now()
  const answer = await until(ask, refused, WITHIN_MS, 100)
  return { answer, ms: Date.now() - began }
}

const apps = () => [w.t, other]
const contacts = (t: TestApp, key: string) => t.request('GET', '/contacts', { key })

describe('a change made elsewhere is refused by every app within 5 seconds', () => {
  test('a key revoked by the CLI', async () => {
    const project = await w.t.project('Revoked elsewhere')
    // Both apps have accepted the key, and remember it.
    for (const t of apps()) expect((await contacts(t, project.secretKey)).status).toBe(200)
    const [secret] = (await listKeys(w.t.app.db, project.id)).filter((key) => key.type === 'secret')
    expect((await mailsteadChild(['key', 'revoke', String(secret!.id), '--yes', ...flags])).code).toBe(0)
    for (const t of apps()) {
      const { answer, ms } = await refusedWithin(() => contacts(t, project.secretKey), (response) => response.status === 401)
      expect(answer.status).toBe(401)
      expect(ms).toBeLessThanOrEqual(WITHIN_MS)
    }
  })

  test('a project disabled by the CLI, for both its keys', async () => {
    const project = await w.t.project('Disabled elsewhere')
    for (const t of apps()) expect((await contacts(t, project.secretKey)).status).toBe(200)
    expect((await mailsteadChild(['project', 'disable', String(project.id), '--yes', ...flags])).code).toBe(0)
    for (const t of apps()) {
      for (const key of [project.secretKey, project.publicKey]) {
        const ask = () => t.request('POST', '/v1/track', { key, body: { email: 'reader@example.com', event: 'seen' } })
        const { answer, ms } = await refusedWithin(ask, (response) => response.status === 403)
        expect(answer.body.code).toBe('PROJECT_DISABLED')
        expect(ms).toBeLessThanOrEqual(WITHIN_MS)
      }
    }
  })

  test('a domain that lost its verification at a check in the first app, for sending through the second', async () => {
    const send = () => other.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'a@sender.example.com', to: 'jane@example.net', subject: 'x', text: 'y' } })
    expect((await send()).status).toBe(200)
    // The DKIM record is gone: the first app's checker finds it so.
    const dkim = w.domain.dnsRecords.find((record: { name: string }) => record.name.includes('._domainkey.'))
    w.dns.records(dkim.name)
    await w.t.app.checker.check(w.domain.id)
    const { answer, ms } = await refusedWithin(send, (response) => response.status === 403)
    expect(answer.body.code).toBe('DOMAIN_NOT_VERIFIED')
    expect(ms).toBeLessThanOrEqual(WITHIN_MS)
  })
})
