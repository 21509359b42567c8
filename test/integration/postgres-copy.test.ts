// @database
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { createApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { openPostgres } from '../../src/db/postgres.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { silentLogger } from '../../src/lib/logger.ts'
import { noDns } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { freshPostgres, type TestDatabase } from '../helpers/postgres.ts'

// SQLite into PostgreSQL, whichever database the rest of the suite runs on.
const SECRET = 'copy-test-secret-copy-test-secret-copy'
const made: TestDatabase[] = []
afterAll(async () => {
  for (const database of made) await database.drop()
})

/** A SQLite data directory with rows in the tables a copy must get right: JSONB, blobs, identities, composite keys. */
async function sqliteDataDir() {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailstead-copy-'))
  const flags = ['--data-dir', dataDir, '--secret', SECRET]
  const project = JSON.parse((await cli(['project', 'create', '--name', 'Copied', '--json', ...flags])).out)
  await cli(['project', 'create', '--name', 'Second', ...flags])
  await cli(['domain', 'add', 'copied.example.com', '--project', String(project.id), ...flags])
  await cli(['suppression', 'add', 'gone@example.net', '--project', String(project.id), ...flags])
  const { config } = loadConfig({ env: {}, flags: { 'data-dir': dataDir, secret: SECRET, 'http-port': '0', 'mx-port': 'off', 'relay-port': 'off', 'relay-tls-port': 'off' } })
  const app = await createApp(config, { logger: silentLogger, resolver: noDns })
  const call = (path: string, body: unknown) =>
    app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  for (let i = 0; i < 25; i++) {
    expect((await call('/v1/track', { email: `person${i}@example.net`, event: 'signed-up', data: { plan: i % 2 ? 'pro' : 'free', seats: i, tags: ['a', `t${i}`], nested: { deep: { ü: 'ö' } } } })).status).toBe(200)
  }
  await app.stop()
  // An email with its MIME (a blob) and one delivery: rows the API makes only with a verified domain.
  const lite = openSqlite(join(dataDir, 'mailstead.db'))
  await sql`INSERT INTO emails (id, project_id, from_address, recipients, subject, message_id, status, created_at, updated_at)
    VALUES ('e1', ${project.id}, 'a@copied.example.com', '{"to":["person1@example.net"]}', 'Hi', '<m1@x>', 'QUEUED', 1, 1)`.execute(lite.db)
  await sql`INSERT INTO email_contents (email_id, html, text, mime) VALUES ('e1', '<p>hi</p>', 'hi', ${new Uint8Array([0, 1, 2, 255, 10, 13])})`.execute(lite.db)
  await sql`INSERT INTO deliveries (email_id, project_id, recipient, recipient_domain, state, next_attempt_at, expires_at, created_at, updated_at)
    VALUES ('e1', ${project.id}, 'person1@example.net', 'example.net', 'queued', 1, 2, 1, 1)`.execute(lite.db)
  await lite.close()
  return { dataDir, flags, projectId: project.id as number }
}

const counts = async (db: ReturnType<typeof openSqlite>['db'], tables: string[]) =>
  Object.fromEntries(await Promise.all(tables.map(async (t) => [t, (await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(t)}`.execute(db)).rows[0]!.n])))

describe('mailstead migrate --database-url copies the data directory\'s SQLite into an empty PostgreSQL', () => {
  test('every row, JSON data and blobs alike; identities go on after the ids copied; a second run copies nothing', async () => {
    const { dataDir, flags } = await sqliteDataDir()
    const target = await freshPostgres({ empty: true })
    made.push(target)
    const result = await cli(['migrate', ...flags, '--database-url', target.url])
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/Copied .*mailstead\.db into PostgreSQL: \d+ rows in \d+ tables/)
    expect(result.out).toContain('Keep the same secret on every process')

    const lite = openSqlite(join(dataDir, 'mailstead.db'))
    const pg = await openPostgres(target.url)
    try {
      const tables = ['projects', 'api_keys', 'domains', 'suppressions', 'contacts', 'events', 'emails', 'email_contents', 'deliveries']
      const before = await counts(lite.db, tables)
      expect(before.contacts).toBe(25)
      expect(await counts(pg.db as never, tables)).toEqual(before)

      const contactData = async (db: any, jsonOf: string) =>
        (await sql<{ email: string; data: string }>`SELECT email, ${sql.raw(jsonOf)} AS data FROM contacts ORDER BY email`.execute(db)).rows.map((r) => ({ email: r.email, data: JSON.parse(r.data) }))
      expect(await contactData(pg.db, 'data::text')).toEqual(await contactData(lite.db, 'json(data)'))
      const mime = (await sql<{ mime: Uint8Array }>`SELECT mime FROM email_contents`.execute(pg.db)).rows[0]!.mime
      expect([...mime]).toEqual([0, 1, 2, 255, 10, 13])
      const keys = (db: any) => sql<{ id: number; hash: string }>`SELECT id, hash FROM api_keys ORDER BY id`.execute(db).then((r) => r.rows)
      expect(await keys(pg.db)).toEqual(await keys(lite.db))

      // The workflow cursors stand where SQLite's did: at its last event, and at the copy's commit order.
      const cursors = (await sql<{ source: string; last_id: number; last_order: string }>`SELECT source, last_id, last_order FROM workflow_cursors ORDER BY source`.execute(pg.db)).rows
      const copiedOrder = (await sql<{ o: string }>`SELECT DISTINCT CAST(commit_order AS text) AS o FROM events`.execute(pg.db)).rows
      expect(copiedOrder).toHaveLength(1)
      expect(cursors.map((c) => c.last_order)).toEqual(cursors.map(() => copiedOrder[0]!.o))
      const next = await sql<{ id: number }>`INSERT INTO projects (name, created_at, updated_at) VALUES ('After', 1, 1) RETURNING id`.execute(pg.db)
      const largest = (await sql<{ id: number }>`SELECT max(id) AS id FROM projects`.execute(lite.db)).rows[0]!.id
      expect(next.rows[0]!.id).toBe(largest + 1)
    } finally {
      await lite.close()
      await pg.close()
    }

    const again = await cli(['migrate', ...flags, '--database-url', target.url])
    expect(again).toMatchObject({ code: 0 })
    expect(again.out).toContain('was not copied: PostgreSQL already holds data')
  })

  test('a SQLite database that a server still has open is not read, and PostgreSQL is left empty', async () => {
    const { dataDir, flags } = await sqliteDataDir()
    const target = await freshPostgres({ empty: true })
    made.push(target)
    const holder = openSqlite(join(dataDir, 'mailstead.db'))
    await sql`BEGIN IMMEDIATE`.execute(holder.db)
    try {
      const result = await cli(['migrate', ...flags, '--database-url', target.url])
      expect(result.code).toBe(1)
      expect(result.err).toContain('is open in another process')
    } finally {
      await sql`ROLLBACK`.execute(holder.db)
      await holder.close()
    }
    const pg = await openPostgres(target.url)
    try {
      expect((await sql<{ n: number }>`SELECT count(*) AS n FROM projects`.execute(pg.db)).rows).toEqual([{ n: 0 }])
    } finally {
      await pg.close()
    }
  })
})
