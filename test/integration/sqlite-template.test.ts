// @database-incidental: SQLite's migrated template file; skipped on PostgreSQL, whose template test/helpers/postgres.ts makes
import { afterAll, describe, expect, test } from 'bun:test'
import { Database as BunDatabase } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MIGRATIONS } from '../../migrations/index.ts'
import { migrate } from '../../src/db/migrator.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { onPostgres } from '../helpers/postgres.ts'
import { seedMigratedSqlite } from '../helpers/sqlite-template.ts'

/*
 * Test apps on SQLite start from a copy of a migrated template instead of migrating: the copy
 * must be what migrating makes, or every test would run on a schema the product never has.
 */

const dir = mkdtempSync(join(tmpdir(), 'mailstead-template-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The schema's text and the migrations recorded, as the file holds them. */
function shapeOf(path: string) {
  const db = new BunDatabase(path, { readonly: true })
  try {
    return {
      schema: db.query("SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all(),
      migrations: db.query<{ name: string }, []>('SELECT name FROM migrations ORDER BY name').all().map((row) => row.name),
    }
  } finally {
    db.close()
  }
}

describe.skipIf(onPostgres)('a test database seeded from the migrated template', () => {
  test('has the schema and the history that running every migration gives, and is private (600)', async () => {
    const migrated = openSqlite(join(dir, 'migrated', 'mailstead.db'))
    await migrate(migrated.db, MIGRATIONS)
    await migrated.close()
    const seeded = join(dir, 'seeded', 'mailstead.db')
    await seedMigratedSqlite(seeded)
    expect(shapeOf(seeded)).toEqual(shapeOf(join(dir, 'migrated', 'mailstead.db')))
    expect(shapeOf(seeded).migrations).toEqual(MIGRATIONS.map((m) => m.name).sort())
    expect((statSync(seeded).mode & 0o777).toString(8)).toBe('600')
  })

  test('leaves a database that is already there alone (an app sharing another\'s data directory)', async () => {
    const path = join(dir, 'mailstead.db')
    writeFileSync(path, 'not replaced')
    await seedMigratedSqlite(path)
    expect(readFileSync(path, 'utf8')).toBe('not replaced')
  })
})
