// @database
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cli } from '../helpers/cli.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { freshPostgres, onPostgres, type TestDatabase } from '../helpers/postgres.ts'

const parent = mkdtempSync(join(tmpdir(), 'mailstead-files-'))
const apps: TestApp[] = []
const databases: TestDatabase[] = []
afterAll(async () => {
  for (const app of apps) await app.close()
  for (const database of databases) await database.drop()
  rmSync(parent, { recursive: true, force: true })
})

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe('what Mailstead writes into its data directory', () => {
  test('is its own user\'s alone: the directory 700, the secret 600, and on SQLite the database, its WAL and its shared memory 600', async () => {
    const dataDir = join(parent, 'fresh', 'data')
    const database = onPostgres ? await freshPostgres({ empty: true }) : undefined
    if (database) databases.push(database)
    const databaseFlags = database ? ['--database-url', database.url] : []
    const migrated = await cli(['migrate', '--data-dir', dataDir, ...databaseFlags])
    expect(migrated.code).toBe(0)
    expect(modeOf(dataDir)).toBe('700')
    expect(modeOf(join(dataDir, 'secret'))).toBe('600')
    const created = await cli(['project', 'create', '--name', 'Files', '--data-dir', dataDir, ...databaseFlags])
    expect(created.code).toBe(0)
    // The rest is about SQLite's files; PostgreSQL keeps none in the data directory.
    if (onPostgres) return
    expect(modeOf(join(dataDir, 'mailstead.db'))).toBe('600')
    // A write while the database is open leaves its WAL and shared memory beside it.
    for (const name of ['mailstead.db', 'mailstead.db-wal', 'mailstead.db-shm']) {
      try {
        expect(`${name} ${modeOf(join(dataDir, name))}`).toBe(`${name} 600`)
      } catch (error) {
        // The WAL and shared memory exist only while a connection has them open.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
    }
  })

  test('a running server keeps its WAL and shared memory 600 (SQLite), and its CSV uploads in a 700 directory', async () => {
    const t = await createTestApp()
    apps.push(t)
    const { secretKey } = await t.project()
    const upload = await t.request('POST', '/contacts/import', { key: secretKey, raw: 'email\nada@example.com\n', headers: { 'content-type': 'text/csv' } })
    expect(upload.status).toBe(202)
    expect(modeOf(join(t.dataDir, 'imports'))).toBe('700')
    // SQLite's files: PostgreSQL keeps none in the data directory.
    if (onPostgres) return
    expect(modeOf(join(t.dataDir, 'mailstead.db-wal'))).toBe('600')
    expect(modeOf(join(t.dataDir, 'mailstead.db-shm'))).toBe('600')
  })
})
