// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrationsFor } from '../../migrations/index.ts'
import { COMMANDS } from '../../src/cli/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { freshPostgres, onPostgres } from '../helpers/postgres.ts'

const SECRET = 'cli-test-secret-cli-test-secret-0123'
let t: TestApp
let data: string[]

beforeAll(async () => {
  t = await createTestApp()
  data = ['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', SECRET]
})

afterAll(() => t.close())

const createProject = async (name: string) => {
  const result = await cli(['project', 'create', '--name', name, '--json', ...data])
  expect(result.code).toBe(0)
  return JSON.parse(result.out) as { id: number; name: string; sandbox: boolean; secretKey: string; publicKey: string }
}

describe('mailstead --help', () => {
  test('lists every command with a one-line description: a group by its word, its commands in its own help', async () => {
    const { code, out } = await cli(['--help'])
    expect(code).toBe(0)
    for (const command of COMMANDS) {
      const [first, second] = command.name.split(' ')
      expect(out).toMatch(new RegExp(`^  ${first}\\b`, 'm'))
      expect(command.summary).not.toContain('\n')
      if (!second) continue
      const group = await cli([first!, '--help'])
      expect(group.code).toBe(0)
      expect(group.out).toMatch(new RegExp(`^  ${second}\\b`, 'm'))
    }
  })

  test('a command has its own help', async () => {
    const { code, out } = await cli(['key', 'create', '--help'])
    expect(code).toBe(0)
    expect(out).toContain('--project')
    expect(out).toContain('--type')
  })

  test('the installed bin runs the CLI', async () => {
    const child = Bun.spawn(['node', join(import.meta.dir, '../../bin/mailstead'), '--help'], { stdout: 'pipe' })
    expect(await child.exited).toBe(0)
    expect(await new Response(child.stdout).text()).toContain('project')
  })
})

describe('projects and keys', () => {
  test('project create --json prints the project with its keys, which work over HTTP', async () => {
    const project = await createProject('Acme')
    expect(project).toEqual({ id: expect.any(Number), name: 'Acme', sandbox: false, secretKey: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/), publicKey: expect.stringMatching(/^pk_[A-Za-z0-9_-]{43}$/) })
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
  })

  test('key list never prints a whole key', async () => {
    const project = await createProject('Listed')
    const created = await cli(['key', 'create', '--project', String(project.id), '--type', 'public', '--json', ...data])
    const key = JSON.parse(created.out)
    expect(key.key).toMatch(/^pk_/)
    const listed = await cli(['key', 'list', '--project', String(project.id), ...data])
    expect(listed.code).toBe(0)
    for (const secret of [project.secretKey, project.publicKey, key.key]) {
      expect(listed.out).not.toContain(secret)
      expect(listed.out).toContain(`${secret.slice(0, 11)}…`)
    }
  })

  test('key revoke asks, and with --yes revokes: the server refuses the key at once', async () => {
    const project = await createProject('Revoking')
    const keys = JSON.parse((await cli(['key', 'list', '--project', String(project.id), '--json', ...data])).out)
    const secretId = String(keys.find((k: any) => k.type === 'secret').id)
    const declined = await cli(['key', 'revoke', secretId, ...data], { answer: false })
    expect(declined.code).toBe(2)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    const revoked = await cli(['key', 'revoke', secretId, '--yes', ...data])
    expect(revoked.code).toBe(0)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(401)
  })

  test('project disable and enable', async () => {
    const project = await createProject('Toggled')
    expect((await cli(['project', 'disable', String(project.id), '--yes', ...data])).code).toBe(0)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(403)
    expect((await cli(['project', 'enable', String(project.id), ...data])).code).toBe(0)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    const list = await cli(['project', 'list', '--json', ...data])
    expect(JSON.parse(list.out).find((p: any) => p.id === project.id)).toMatchObject({ name: 'Toggled', disabled: false })
  })

  test('project set-rate-limit overrides the limit for that project', async () => {
    const project = await createProject('Throttled')
    expect((await cli(['project', 'set-rate-limit', String(project.id), '2', ...data])).code).toBe(0)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(429)
    expect((await cli(['project', 'set-rate-limit', String(project.id), 'default', ...data])).code).toBe(0)
  })

  test('an unknown project is an error, not a crash', async () => {
    const result = await cli(['key', 'create', '--project', '9999', '--type', 'secret', ...data])
    expect(result.code).toBe(1)
    expect(result.err).toContain('Project 9999 not found')
  })
})

describe('config and migrations', () => {
  test('config show prints the effective configuration with secrets masked', async () => {
    const result = await cli(['config', 'show', '--http-port', '4321', ...data], { env: { MAILSTEAD_LOG_LEVEL: 'warn' } })
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/httpPort\s+MAILSTEAD_HTTP_PORT\s+4321\s+flag/)
    expect(result.out).toMatch(/logLevel\s+MAILSTEAD_LOG_LEVEL\s+warn\s+environment/)
    expect(result.out).not.toContain(SECRET)
    expect(result.out).toContain('********')
  })

  test('a bad setting stops the command with a message naming it', async () => {
    const result = await cli(['config', 'show', ...data], { env: { MAILSTEAD_HTTP_PORT: 'eighty' } })
    expect(result.code).toBe(1)
    expect(result.err).toContain('httpPort')
    expect(result.err).toContain('an integer from 0 to 65535')
  })

  test('migrate applies the migrations once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailstead-cli-'))
    // On PostgreSQL a new, empty database stands for the new data directory's SQLite file.
    const empty = onPostgres ? await freshPostgres({ empty: true }) : undefined
    try {
      const flags = ['--data-dir', dir, ...(empty ? ['--database-url', empty.url] : []), '--secret', SECRET]
      const first = await cli(['migrate', ...flags])
      expect(first).toMatchObject({ code: 0, out: `Applied ${migrationsFor(onPostgres ? 'postgres' : 'sqlite').map((m) => m.name).join(', ')}` })
      const second = await cli(['migrate', ...flags])
      expect(second).toMatchObject({ code: 0, out: 'Database is up to date' })
    } finally {
      await empty?.drop()
    }
  })

  test.each([
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['project', 'create'], "required option '--name <name>' not specified"],
    [['project', 'create', '--name', 'X', '--bogus', '1'], "unknown option '--bogus'"],
    [['key', 'create', '--project', 'abc', '--type', 'secret'], 'positive whole number'],
    [['key', 'create', '--project', '1', '--type', 'admin'], 'secret or public'],
    [['key', 'revoke'], 'KEY_ID'],
  ])('%j is refused with exit code 2', async (argv, message) => {
    const result = await cli([...argv, ...data])
    expect(result.code).toBe(2)
    expect(result.err).toContain(message)
  })
})
