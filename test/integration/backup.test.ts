// @database
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, startServer } from '../helpers/child.ts'
import { cli } from '../helpers/cli.ts'
import { mailsteadChild } from '../helpers/cli-child.ts'
import { onPostgres } from '../helpers/postgres.ts'
import { until } from '../helpers/until.ts'

// `backup` and `restore` copy SQLite's file (VACUUM INTO, its WAL, its header): with a database URL
// they refuse and name pg_dump and pg_restore, which test/integration/postgres-database.test.ts checks.
// On PostgreSQL this file has nothing of its own to run.
const sqliteOnly = describe.skipIf(onPostgres)

/** A server's settings without --secret: the secret is generated into the data directory. */
const settings = (dir: string) => [
  '--data-dir', dir, '--dns-servers', '127.0.0.1:9', '--dns-timeout-ms', '100', '--hostname', 'mx.mailstead.test',
  '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off', '--log-level', 'error', '--rate-limit-per-minute', '10000000',
]

const root = mkdtempSync(join(tmpdir(), 'mailstead-backup-'))
const dir = join(root, 'data')
const backups = join(root, 'backups')
const flags = settings(dir)
let port: number
let server: Subprocess | undefined
let project: { id: number; secretKey: string }

const api = (method: string, path: string, body?: unknown) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))

/** Enough contacts that the copy takes a while: 20,000 of about 1 KiB. */
function seed(path: string) {
  const db = new Database(path)
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
    INSERT INTO contacts (id, project_id, email, email_key, subscribed, data, created_at, updated_at)
    SELECT printf('00000000-0000-7000-8000-%012d', i), 1, 'seed' || i || '@example.com', 'seed' || i || '@example.com', 1,
      jsonb(json_object('pad', hex(randomblob(500)))), 0, 0 FROM n`)
  db.close()
}

const rowsOf = (path: string, query: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db.query(query).all() as any[]
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  if (onPostgres) return
  mkdirSync(backups)
  project = JSON.parse((await mailsteadChild(['project', 'create', '--name', 'Backup', '--json', ...flags])).out)
  seed(join(dir, 'mailstead.db'))
  port = await freePort()
  server = await startServer(flags, port)
  expect((await api('POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })).status).toBe(200)
})

afterAll(() => {
  server?.kill('SIGKILL')
  rmSync(root, { recursive: true, force: true })
})

sqliteOnly('mailstead backup, refused', () => {
  test('a PATH that exists: exit code 1, the file untouched, no secret written beside it', async () => {
    const path = join(backups, 'taken.db')
    writeFileSync(path, 'mine')
    const result = await mailsteadChild(['backup', path, ...flags])
    expect(result.code).toBe(1)
    expect(result.err).toContain(`${path} already exists`)
    expect(readFileSync(path, 'utf8')).toBe('mine')
    expect(readdirSync(backups)).toEqual(['taken.db'])
  })

  test('a PATH whose secret file beside it exists', async () => {
    const path = join(backups, 'secret-taken.db')
    writeFileSync(`${path}.secret`, 'mine')
    const result = await mailsteadChild(['backup', path, ...flags])
    expect(result.code).toBe(1)
    expect(result.err).toContain(`${path}.secret already exists`)
    expect(existsSync(path)).toBe(false)
  })

  test('a PATH that cannot be written: a clear reason, and nothing left behind', async () => {
    const before = readdirSync(backups)
    const missing = await mailsteadChild(['backup', join(backups, 'no-such-dir', 'b.db'), ...flags])
    expect(missing.code).toBe(1)
    expect(missing.err).toContain('its directory does not exist; nothing was written')
    const underFile = await mailsteadChild(['backup', join(backups, 'taken.db', 'b.db'), ...flags])
    expect(underFile.code).toBe(1)
    expect(underFile.err).toContain('is not a directory')
    expect(readdirSync(backups)).toEqual(before)
  })

  test.skipIf(process.getuid?.() === 0)('a directory without write permission', async () => {
    const locked = join(root, 'locked')
    mkdirSync(locked, { mode: 0o500 })
    const result = await mailsteadChild(['backup', join(locked, 'b.db'), ...flags])
    expect(result.code).toBe(1)
    expect(result.err).toContain('permission denied')
    expect(readdirSync(locked)).toEqual([])
  })

  test('no PATH: a usage error', async () => {
    const result = await cli(['backup', ...flags])
    expect(result.code).toBe(2)
  })
})

sqliteOnly('mailstead restore while the server runs', () => {
  test('is refused, and the database is untouched', async () => {
    const path = join(backups, 'early.db')
    expect((await mailsteadChild(['backup', path, ...flags])).code).toBe(0)
    const result = await mailsteadChild(['restore', path, '--yes', ...flags])
    expect(result.code).toBe(1)
    expect(result.err).toContain('is open in another process (a running server, or another mailstead command); stop it first')
    expect((await api('GET', '/api/v1/domains')).status).toBe(200)
  })
})

sqliteOnly('a backup while writes go on', () => {
  test('holds every write committed before it began, each row intact, and restores into a working server', async () => {
    // Four clients write one after another each: contacts, and events (a contact and its event in one write).
    const acknowledged: string[][] = [[], [], [], []]
    let writing = true
    const failures: string[] = []
    const loops = acknowledged.map(async (done, k) => {
      for (let i = 0; writing; i++) {
        const email = `loop${k}-${i}@example.com`
        const answer = await (k % 2 === 0 ? api('POST', '/contacts', { email }) : api('POST', '/v1/track', { email, event: 'tick' })).catch((error) => ({ status: 0, body: String(error) }))
        if (answer.status >= 300 || answer.status === 0) {
          failures.push(`${email}: ${answer.status} ${JSON.stringify(answer.body)}`)
          writing = false
        } else done.push(email)
      }
    })
    await until(async () => acknowledged.flat().length >= 200 || failures.length > 0, (done) => done, 30_000, 10)
    const path = join(backups, 'live.db')
    const before = acknowledged.map((done) => done.length)
    const result = await mailsteadChild(['backup', path, '--json', ...flags])
    const after = acknowledged.map((done) => done.length)
    writing = false
    await Promise.all(loops)
    expect(failures).toEqual([])
    expect(result.code).toBe(0)
    expect(after.reduce((a, b) => a + b) - before.reduce((a, b) => a + b)).toBeGreaterThan(0)

    const report = JSON.parse(result.out)
    const contacts = rowsOf(path, 'SELECT * FROM contacts ORDER BY id')
    expect(report).toMatchObject({ path, bytes: statSync(path).size, secret: { path: `${path}.secret`, from: 'default' } })
    expect(report.tables.contacts).toBe(contacts.length)
    expect(report.migrations).toContain('0001_init')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(`${path}.secret`).mode & 0o777).toBe(0o600)
    expect(readFileSync(`${path}.secret`, 'utf8')).toBe(readFileSync(join(dir, 'secret'), 'utf8'))

    // A consistent prefix: each client's writes up to some point, every one acknowledged before the backup began among them.
    const emails = new Set(contacts.map((c) => c.email))
    for (const [k, done] of acknowledged.entries()) {
      const held = done.filter((email) => emails.has(email)).length
      expect(held).toBeGreaterThanOrEqual(before[k]!)
      expect(held).toBeLessThanOrEqual(after[k]! + 1)
      expect(done.slice(0, held).every((email) => emails.has(email))).toBe(true)
      expect(emails.has(`loop${k}-${held}@example.com`)).toBe(false)
    }
    const ticks = rowsOf(path, "SELECT count(*) AS n FROM events WHERE name = 'tick'")[0].n
    expect(ticks).toBe(contacts.filter((c) => /^loop[13]-/.test(c.email)).length)
    expect(rowsOf(path, 'PRAGMA foreign_key_check')).toEqual([])

    server!.kill('SIGTERM')
    expect(await server!.exited).toBe(0)
    server = undefined
    // Every row the backup holds is the row the server wrote, byte for byte.
    const live = new Map(rowsOf(join(dir, 'mailstead.db'), 'SELECT * FROM contacts').map((c) => [c.id, c]))
    for (const contact of contacts) expect(live.get(contact.id)).toEqual(contact)

    const fresh = join(root, 'restored')
    const restored = await mailsteadChild(['restore', path, '--yes', '--json', ...settings(fresh)])
    expect(restored.code).toBe(0)
    expect(JSON.parse(restored.out)).toMatchObject({ path: join(fresh, 'mailstead.db'), from: path, secret: join(fresh, 'secret'), replaced: null })
    expect(readFileSync(join(fresh, 'secret'), 'utf8')).toBe(readFileSync(join(dir, 'secret'), 'utf8'))
    port = await freePort()
    server = await startServer(settings(fresh), port)
    const domains = await api('GET', '/api/v1/domains')
    expect(domains.status).toBe(200)
    expect(domains.body.map((d: any) => d.name)).toEqual(['sender.example.com'])
    expect((await api('POST', '/contacts', { email: 'after-restore@example.com' })).status).toBe(201)
    server.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    server = undefined
    expect(rowsOf(join(fresh, 'mailstead.db'), 'SELECT count(*) AS n FROM contacts')[0].n).toBe(contacts.length + 1)
  }, 60_000)
})

sqliteOnly('mailstead restore', () => {
  const live = () => join(backups, 'live.db')
  const database = () => join(dir, 'mailstead.db')
  const count = (path: string) => rowsOf(path, 'SELECT count(*) AS n FROM contacts')[0].n

  test('asks before replacing the database; declined, it changes nothing', async () => {
    const before = readFileSync(database())
    const declined = await cli(['restore', live(), ...flags], { answer: false })
    expect(declined.code).toBe(2)
    expect(declined.err).toContain('Not confirmed; nothing changed')
    expect(readFileSync(database()).equals(before)).toBe(true)
  })

  test('confirmed, it puts the backup in place and keeps the database it replaced', async () => {
    const before = count(database())
    const result = await cli(['restore', live(), ...flags], { answer: true })
    expect(result.code).toBe(0)
    expect(result.out).toContain('migrations apply when the server starts')
    const kept = readdirSync(dir).filter((name) => name.startsWith('mailstead.db.replaced-'))
    expect(kept).toHaveLength(1)
    expect(readdirSync(dir).filter((name) => /-wal$|-shm$|restoring/.test(name))).toEqual([])
    expect(count(join(dir, kept[0]!))).toBe(before)
    expect(count(database())).toBe(count(live()))
  })

  test('refuses a file that is not a Mailstead database, is damaged, comes from a newer Mailstead or is in use', async () => {
    const text = join(backups, 'text.db')
    writeFileSync(text, 'not a database at all, but long enough to look like a header of one. '.repeat(100))
    const other = join(backups, 'other.db')
    new Database(other).exec('CREATE TABLE x (a)')
    const damaged = join(backups, 'damaged.db')
    const bytes = readFileSync(live())
    bytes.fill(0x5a, 4096 * 40, 4096 * 44)
    writeFileSync(damaged, bytes)
    const newer = join(backups, 'newer.db')
    writeFileSync(newer, readFileSync(live()))
    new Database(newer).exec("INSERT INTO migrations (name, applied_at) VALUES ('9999_future', 0)")
    const inUse = join(backups, 'in-use.db')
    writeFileSync(inUse, readFileSync(live()))
    writeFileSync(`${inUse}-wal`, 'frames not yet in the file')
    const before = readFileSync(database())
    for (const [path, message] of [
      [text, 'cannot be read as an SQLite database'],
      [other, 'is not a Mailstead database: it has no migrations table'],
      [damaged, 'is damaged'],
      [newer, 'was made by a newer Mailstead (migration 9999_future is unknown to this one)'],
      [join(backups, 'absent.db'), 'There is no backup file at'],
      [inUse, 'has a WAL beside it, so it is (a copy of) a database in use, not a backup'],
    ]) {
      const result = await cli(['restore', path!, '--yes', ...flags])
      expect(result.code).toBe(1)
      expect(result.err).toContain(message!)
    }
    expect(readFileSync(database()).equals(before)).toBe(true)
  })

  test('replaces a database damaged past reading, with a warning that it could not check for a server', async () => {
    writeFileSync(database(), Buffer.alloc(64 * 1024, 0x5a))
    const result = await cli(['restore', live(), '--yes', ...flags])
    expect(result.code).toBe(0)
    expect(result.err).toContain('is not a readable database, so whether a server has it open cannot be checked: make sure it is stopped')
    expect(count(database())).toBe(count(live()))
  })
})

sqliteOnly('a secret from MAILSTEAD_SECRET or --secret', () => {
  const SECRET = 'backup-test-secret-backup-test-secret-0'
  const own = join(root, 'own-secret')
  const ownFlags = [...settings(own), '--secret', SECRET]
  const path = join(backups, 'own-secret.db')

  test('is not copied: the backup says to keep it', async () => {
    expect((await mailsteadChild(['project', 'create', '--name', 'Own', ...ownFlags])).code).toBe(0)
    expect((await mailsteadChild(['domain', 'add', 'own.example.com', '--project', '1', ...ownFlags])).code).toBe(0)
    const result = await cli(['backup', path, ...ownFlags])
    expect(result.code).toBe(0)
    expect(result.out).toContain('The secret comes from --secret and is not in the backup: keep it')
    expect(existsSync(`${path}.secret`)).toBe(false)
  })

  test('a restore under another secret is refused, since it could not open the DKIM keys; under the same one it works', async () => {
    const target = join(root, 'own-restored')
    const generated = await cli(['restore', path, '--yes', ...settings(target)])
    expect(generated.code).toBe(1)
    expect(generated.err).toContain('the backup carries no secret')
    const wrong = await cli(['restore', path, '--yes', ...settings(target)], { env: { MAILSTEAD_SECRET: 'x'.repeat(40) } })
    expect(wrong.code).toBe(1)
    expect(wrong.err).toContain("the secret from MAILSTEAD_SECRET does not open the backup's keys")
    expect(existsSync(join(target, 'mailstead.db'))).toBe(false)
    const right = await cli(['restore', path, '--yes', ...settings(target)], { env: { MAILSTEAD_SECRET: SECRET } })
    expect(right.code).toBe(0)
    expect(right.out).toContain("The backup carries no secret: keep running the server with MAILSTEAD_SECRET's, which opens its keys")
  })
})
