// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createKey } from '../../src/core/projects/projects.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { ManualClock } from '../helpers/clock.ts'

/*
 * API keys through HTTP and the CLI: a name, a scope, an optional expiry and the time of last
 * use; listed never whole; revoked. Scopes route by route are in key-scopes.test.ts.
 */

let t: TestApp
let project: { id: number; secretKey: string }

beforeAll(async () => {
  t = await createTestApp()
  project = await t.project('Keys')
})

afterAll(() => t.close())

const create = (body: unknown) => t.request('POST', '/api/v1/keys', { key: project.secretKey, body })
const list = async () => (await t.request('GET', '/api/v1/keys', { key: project.secretKey })).body as any[]
const flags = () => ['--data-dir', t.dataDir, ...t.databaseFlags, '--json']

describe('creating a key', () => {
  test('with a name, a scope and an expiry: shown whole once, then listed by its prefix with all but the secret', async () => {
    const made = await create({ name: 'Production server', scope: 'sending', expiresAt: '2099-01-31T09:00:00Z' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: 'Production server', type: 'secret', scope: 'sending', expiresAt: '2099-01-31T09:00:00.000Z', lastUsedAt: null, revokedAt: null })
    expect(made.body.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)
    const listed = (await list()).find((k) => k.id === made.body.id)
    expect(listed).toEqual({
      id: made.body.id,
      projectId: project.id,
      name: 'Production server',
      type: 'secret',
      scope: 'sending',
      key: `${made.body.key.slice(0, 11)}…`,
      prefix: made.body.key.slice(0, 11),
      createdAt: expect.any(String),
      expiresAt: '2099-01-31T09:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
    })
    expect(JSON.stringify(await list())).not.toContain(made.body.key)
  })

  test('the project\'s first keys are named after their type and have full access', async () => {
    const first = (await list()).filter((k) => k.id <= 2)
    expect(first.map((k) => [k.name, k.type, k.scope, k.expiresAt])).toEqual([
      ['Secret key', 'secret', 'full', null],
      ['Public key', 'public', 'full', null],
    ])
  })

  test.each([
    [{ scope: 'read' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 'Two\nlines' }, 'name'],
    [{ name: 'Scoped', scope: 'admin' }, 'scope'],
    [{ name: 'Tracker', type: 'public', scope: 'sending' }, 'scope'],
    [{ name: 'Past', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    [{ name: 'Vague', expiresAt: 'next tuesday' }, 'expiresAt'],
    [{ name: 'No zone', expiresAt: '2099-01-01T00:00' }, 'expiresAt'],
  ])('%p is refused with a 422 naming %s, and no key is made', async (body, field) => {
    const before = (await list()).length
    const refused = await create(body)
    expect(refused.status).toBe(422)
    expect(JSON.stringify(refused.body)).toContain(field)
    expect((await list()).length).toBe(before)
  })

  test('a date alone means its midnight UTC', async () => {
    const made = await create({ name: 'Until new year', expiresAt: '2099-01-01' })
    expect(made.body.expiresAt).toBe('2099-01-01T00:00:00.000Z')
  })
})

describe('expiry', () => {
  test('an expired key gets the 401 of a revoked key, with a message that says it expired', async () => {
    const now = Date.now()
    const old = await t.app.writer.run((trx) => createKey(trx, project.id, 'secret', now - 60_000, { name: 'Old', expiresAt: now - 1_000 }))
    const refused = await t.request('GET', '/contacts', { key: old.key })
    expect(refused.status).toBe(401)
    expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED', message: `This API key expired at ${new Date(now - 1_000).toISOString()}` })
    expect(refused.body.suggestion).toContain('Create a new key')
  })

  test('a key accepted and remembered is refused once its time comes', async () => {
    const clock = new ManualClock(Date.now())
    const timed = await createTestApp({}, { clock })
    try {
      const owner = await timed.project('Timed')
      const made = await timed.request('POST', '/api/v1/keys', { key: owner.secretKey, body: { name: 'Short', expiresAt: new Date(clock.now() + 1_500).toISOString() } })
      expect((await timed.request('GET', '/contacts', { key: made.body.key })).status).toBe(200)
      clock.advance(1_500)
      expect((await timed.request('GET', '/contacts', { key: made.body.key })).status).toBe(401)
    } finally {
      await timed.close()
    }
  })
})

describe('last use', () => {
  test('is written after a request, through the writer, and not again within the minute', async () => {
    const made = await create({ name: 'Used' })
    const lastUsed = async () => (await list()).find((k) => k.id === made.body.id).lastUsedAt as string | null
    expect(await lastUsed()).toBeNull()
    expect((await t.request('GET', '/contacts', { key: made.body.key })).status).toBe(200)
    await t.app.writer.drain()
    const first = await lastUsed()
    expect(first).not.toBeNull()
    expect(Date.now() - Date.parse(first!)).toBeLessThan(10_000)
    await Bun.sleep(5) // so that a later use would have a later time
    for (let i = 0; i < 20; i++) await t.request('GET', '/contacts', { key: made.body.key })
    await t.app.writer.drain()
    // Twenty requests within the minute wrote no later time.
    expect(await lastUsed()).toBe(first)
  })
})

describe('revoking', () => {
  test('a revoked key is listed with its revocation and gets 401', async () => {
    const made = await create({ name: 'Doomed', scope: 'read' })
    const revoked = await t.request('DELETE', `/api/v1/keys/${made.body.id}`, { key: project.secretKey })
    expect(revoked.status).toBe(200)
    expect(revoked.body).toMatchObject({ name: 'Doomed', scope: 'read', revokedAt: expect.any(String) })
    expect((await t.request('GET', '/contacts', { key: made.body.key })).status).toBe(401)
  })
})

describe('mailstead key create', () => {
  test('--name, --scope and --expires in days; key list shows them', async () => {
    const made = await cli(['key', 'create', '--project', String(project.id), '--type', 'secret', '--name', 'Backup job', '--scope', 'read', '--expires', '30d', ...flags()])
    expect(made.code).toBe(0)
    const key = JSON.parse(made.out)
    expect(key).toMatchObject({ name: 'Backup job', scope: 'read' })
    const days = (Date.parse(key.expiresAt) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(29.9)
    expect(days).toBeLessThan(30.1)
    expect((await t.request('GET', '/contacts', { key: key.key })).status).toBe(200)
    expect((await t.request('POST', '/contacts', { key: key.key, body: { email: 'a@example.net' } })).status).toBe(403)
    const listed = JSON.parse((await cli(['key', 'list', '--project', String(project.id), ...flags()])).out)
    expect(listed.find((k: any) => k.id === key.id)).toMatchObject({ name: 'Backup job', scope: 'read', expiresAt: key.expiresAt })
  })

  test('an ISO date works; a bad scope or expiry is refused with a sentence', async () => {
    const made = await cli(['key', 'create', '--project', String(project.id), '--type', 'secret', '--expires', '2099-06-30', ...flags()])
    expect(JSON.parse(made.out)).toMatchObject({ name: 'Secret key', scope: 'full', expiresAt: '2099-06-30T00:00:00.000Z' })
    const scope = await cli(['key', 'create', '--project', String(project.id), '--type', 'secret', '--scope', 'everything', ...flags()])
    expect(scope.code).not.toBe(0)
    expect(scope.err).toContain('--scope must be one of full, sending, read')
    const expires = await cli(['key', 'create', '--project', String(project.id), '--type', 'secret', '--expires', 'soon', ...flags()])
    expect(expires.code).not.toBe(0)
    expect(expires.err).toContain('--expires must be a number of days (90d)')
  })
})
