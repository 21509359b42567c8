// @database
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../migrations/index.ts'
import { SOURCE_COMMAND } from '../helpers/child.ts'
import { cli } from '../helpers/cli.ts'
import { admin, freshPostgres, POSTGRES_ADMIN_URL, type TestDatabase } from '../helpers/postgres.ts'
import { openPostgres } from '../../src/db/postgres.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { migrate } from '../../src/db/migrator.ts'

const SECRET = 'postgres-test-secret-postgres-test-secret'
const made: TestDatabase[] = []
afterAll(async () => {
  for (const database of made) await database.drop()
})

async function fresh(options: { empty?: boolean } = {}) {
  const database = await freshPostgres(options)
  made.push(database)
  return database
}

const dataDir = () => mkdtempSync(join(tmpdir(), 'mailstead-pg-'))
const migrateCli = (url: string, env: Record<string, string> = {}) => cli(['migrate', '--data-dir', dataDir(), '--secret', SECRET, ...(url ? ['--database-url', url] : [])], { env })

describe('mailstead migrate on PostgreSQL', () => {
  test('applies the migrations to an empty database once, with the URL as a flag or in the environment', async () => {
    const { url } = await fresh({ empty: true })
    expect(await migrateCli(url)).toMatchObject({ code: 0, out: `Applied ${POSTGRES_MIGRATIONS.map((m) => m.name).join(', ')}` })
    expect(await migrateCli('', { MAILSTEAD_DATABASE_URL: url })).toMatchObject({ code: 0, out: 'Database is up to date' })
  })

  test('two processes migrating one empty database at once: one applies, the other finds it done', async () => {
    const { url } = await fresh({ empty: true })
    const run = () => Bun.spawn([...SOURCE_COMMAND, 'migrate', '--data-dir', dataDir(), '--secret', SECRET, '--database-url', url], { stdout: 'pipe', stderr: 'pipe' })
    const children = [run(), run()]
    const outcomes = await Promise.all(children.map(async (child) => ({ code: await child.exited, out: (await new Response(child.stdout).text()).trim(), err: await new Response(child.stderr).text() })))
    expect(outcomes.map((o) => o.code)).toEqual([0, 0])
    // They take turns, migration by migration: each is applied once, by one or the other.
    const applied = outcomes.flatMap((o) => /^Applied (.*)$/.exec(o.out)?.[1]?.split(', ') ?? [])
    expect(applied.sort()).toEqual(POSTGRES_MIGRATIONS.map((m) => m.name).sort())
  })
})

describe('the data commands on PostgreSQL', () => {
  test('project create writes to the database the URL names', async () => {
    const { url } = await fresh()
    const result = await cli(['project', 'create', '--name', 'On PostgreSQL', '--json', '--data-dir', dataDir(), '--secret', SECRET, '--database-url', url])
    expect(result.code).toBe(0)
    const database = await openPostgres(url)
    try {
      expect((await sql<{ name: string }>`SELECT name FROM projects`.execute(database.db)).rows).toEqual([{ name: 'On PostgreSQL' }])
    } finally {
      await database.close()
    }
  })
})

describe('backup and restore are SQLite\'s', () => {
  test.each(['backup', 'restore'])('%s with a database URL names PostgreSQL\'s own tool instead', async (command) => {
    const { url } = await fresh()
    const result = await cli([command, join(dataDir(), 'copy.db'), ...(command === 'restore' ? ['--yes'] : []), '--data-dir', dataDir(), '--secret', SECRET, '--database-url', url])
    expect(result.code).toBe(1)
    expect(result.err).toContain(`mailstead ${command} is for SQLite's database file`)
    expect(result.err).toContain(command === 'backup' ? 'pg_dump' : 'pg_restore')
  })
})

describe('the PostgreSQL schema is SQLite\'s', () => {
  test('every table, column (with its nullability), and index that SQLite has after its migrations', async () => {
    const lite = openSqlite(':memory:')
    await migrate(lite.db, MIGRATIONS)
    const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`.execute(lite.db)
    const sqliteColumns: string[] = []
    const sqliteIndexes: string[] = []
    for (const { name } of tables.rows) {
      const columns = await sql<{ name: string; notnull: number; pk: number }>`SELECT name, "notnull", pk FROM pragma_table_info(${name})`.execute(lite.db)
      for (const c of columns.rows) sqliteColumns.push(`${name}.${c.name} ${c.notnull || c.pk ? 'not null' : 'null'}`)
    }
    const indexes = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'`.execute(lite.db)
    for (const { name } of indexes.rows) sqliteIndexes.push(name)
    await lite.close()

    const { url } = await fresh()
    const pgDatabase = await openPostgres(url)
    try {
      const columns = await sql<{ table_name: string; column_name: string; is_nullable: string }>`
        SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`.execute(pgDatabase.db)
      // PostgreSQL's change signal stands for SQLite's data_version pragma (migration 0019); the
      // commit order of events is PostgreSQL's alone (migration 0023).
      const pgColumns = columns.rows.filter((c) => c.table_name !== 'change_signal' && c.column_name !== 'commit_order').map((c) => `${c.table_name}.${c.column_name} ${c.is_nullable === 'NO' ? 'not null' : 'null'}`)
      expect(pgColumns.sort()).toEqual(sqliteColumns.sort())
      const pgIndexes = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`.execute(pgDatabase.db)
      const names = new Set(pgIndexes.rows.map((r) => r.indexname))
      expect(sqliteIndexes.filter((name) => !names.has(name))).toEqual([])
    } finally {
      await pgDatabase.close()
    }
  })

  test('the change signal moves with a change to keys, projects or domains, committed by any connection', async () => {
    const { url } = await fresh()
    const [one, other] = [await openPostgres(url), await openPostgres(url)]
    try {
      const version = async () => (await sql<{ version: number }>`SELECT version FROM change_signal`.execute(one.db)).rows[0]!.version
      const before = await version()
      await sql`INSERT INTO projects (name, created_at, updated_at) VALUES ('P', 1, 1)`.execute(other.db)
      const afterInsert = await version()
      expect(afterInsert).toBeGreaterThan(before)
      await sql`INSERT INTO contacts (id, project_id, email, email_key, subscribed, created_at, updated_at) SELECT 'c1', id, 'a@b.example', 'a@b.example', 1, 1, 1 FROM projects`.execute(other.db)
      expect(await version()).toBe(afterInsert)
      await sql`UPDATE projects SET disabled = 1`.execute(other.db)
      expect(await version()).toBeGreaterThan(afterInsert)
    } finally {
      await one.close()
      await other.close()
    }
  })

  test("a key's revocation moves the change signal; the write of its last use alone does not", async () => {
    const { url } = await fresh()
    const [one, other] = [await openPostgres(url), await openPostgres(url)]
    try {
      const version = async () => (await sql<{ version: number }>`SELECT version FROM change_signal`.execute(one.db)).rows[0]!.version
      await sql`INSERT INTO projects (name, created_at, updated_at) VALUES ('P', 1, 1)`.execute(other.db)
      await sql`INSERT INTO api_keys (project_id, type, prefix, hash, created_at) SELECT id, 'secret', 'sk_abcdefgh', 'hash', 1 FROM projects`.execute(other.db)
      const before = await version()
      await sql`UPDATE api_keys SET last_used_at = 5`.execute(other.db)
      expect(await version()).toBe(before)
      await sql`UPDATE api_keys SET revoked_at = 6`.execute(other.db)
      expect(await version()).toBeGreaterThan(before)
    } finally {
      await one.close()
      await other.close()
    }
  })

  test('int8 and sums read as numbers, JSON as its text, bytea as bytes', async () => {
    const { url } = await fresh()
    const database = await openPostgres(url)
    try {
      const row = await sql<{ big: number; total: number; data: string; bytes: Uint8Array }>`
        SELECT 1732406400000::bigint AS big, sum(x)::numeric AS total, '{"a": [1, 2]}'::jsonb AS data, '\\x6869'::bytea AS bytes
        FROM (VALUES (1::bigint), (2::bigint)) AS t (x)`.execute(database.db)
      expect(row.rows[0]).toEqual({ big: 1732406400000, total: 3, data: '{"a": [1, 2]}', bytes: expect.any(Uint8Array) })
      expect(Buffer.from(row.rows[0]!.bytes).toString()).toBe('hi')
    } finally {
      await database.close()
    }
  })
})

describe('a database URL that cannot be used is said at once, naming the setting, never the password', () => {
  const serverPort = Number(new URL(POSTGRES_ADMIN_URL).port || 5432)

  test('a port where nothing listens', async () => {
    const result = await migrateCli('postgres://mailstead:hunter2-secret@127.0.0.1:1/mailstead')
    expect(result.code).toBe(1)
    expect(result.err).toContain('MAILSTEAD_DATABASE_URL (--database-url)')
    expect(result.err).toContain('postgres://mailstead@127.0.0.1:1/mailstead')
    expect(result.err).toContain('connection was refused')
    expect(result.err).not.toContain('hunter2')
  })

  test('wrong credentials', async () => {
    await admin(async (client) => {
      await client.query('DROP ROLE IF EXISTS mailstead_no_login')
      await client.query('CREATE ROLE mailstead_no_login NOLOGIN')
    })
    const { name } = await fresh({ empty: true })
    for (const user of ['mailstead_no_such_role', 'mailstead_no_login']) {
      const result = await migrateCli(`postgres://${user}:hunter2-secret@127.0.0.1:${serverPort}/${name}`)
      expect(result.code).toBe(1)
      expect(result.err).toContain('MAILSTEAD_DATABASE_URL (--database-url)')
      expect(result.err).toContain(`refused the credentials of user "${user}"`)
      expect(result.err).not.toContain('hunter2')
    }
  })

  test('a database that does not exist', async () => {
    const result = await migrateCli(new URL('/mailstead_not_made', POSTGRES_ADMIN_URL).toString())
    expect(result.code).toBe(1)
    expect(result.err).toContain('the database "mailstead_not_made" does not exist; create it first (createdb mailstead_not_made)')
  })

  test('a URL that is not PostgreSQL\'s, and the value is not echoed', async () => {
    const result = await migrateCli('mysql://root:hunter2-secret@127.0.0.1/mailstead')
    expect(result.code).toBe(1)
    expect(result.err).toContain('databaseUrl (--database-url)')
    expect(result.err).toContain('a postgres:// or postgresql:// URL')
    expect(result.err).not.toContain('hunter2')
  })

  test('a database a newer Mailstead migrated: refused, and nothing changed', async () => {
    const { url } = await fresh()
    const database = await openPostgres(url)
    try {
      await sql`INSERT INTO migrations (name, applied_at) VALUES ('9999_from_the_future', 1)`.execute(database.db)
      const before = await sql<{ count: number }>`SELECT count(*) AS count FROM information_schema.tables WHERE table_schema = 'public'`.execute(database.db)
      const result = await migrateCli(url)
      expect(result.code).toBe(1)
      expect(result.err).toContain('migrated by a newer Mailstead: migration 9999_from_the_future is unknown to this one')
      const after = await sql<{ count: number }>`SELECT count(*) AS count FROM information_schema.tables WHERE table_schema = 'public'`.execute(database.db)
      expect(after.rows).toEqual(before.rows)
    } finally {
      await database.close()
    }
  })
})
