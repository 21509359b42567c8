// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { MIGRATIONS, migrationsFor } from '../../migrations/index.ts'
import { freshPostgres, onPostgres, type TestDatabase } from '../../test/helpers/postgres.ts'
import type { Database } from './client.ts'
import { openPostgres } from './postgres.ts'
import { openSqlite } from './sqlite.ts'
import { migrate, MigrationError, type Migration } from './migrator.ts'

let made: TestDatabase | undefined
let database: Database

/** An empty database: SQLite in memory, or a new PostgreSQL database. */
beforeEach(async () => {
  made = onPostgres ? await freshPostgres({ empty: true }) : undefined
  database = made ? await openPostgres(made.url) : openSqlite(':memory:')
})

afterEach(async () => {
  await database.close()
  await made?.drop()
})

const tables = async () =>
  (onPostgres
    ? await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`.execute(database.db)
    : await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(database.db)
  ).rows.map((r) => r.name)

const createTable = (name: string): Migration => ({
  name,
  up: async (db) => {
    await db.schema.createTable(name).addColumn('id', 'integer').execute()
  },
})

describe('migrate', () => {
  test('applies each pending migration once and records it', async () => {
    expect(await migrate(database.db, [createTable('one'), createTable('two')])).toEqual(['one', 'two'])
    expect(await migrate(database.db, [createTable('one'), createTable('two')])).toEqual([])
    const history = await database.db.selectFrom('migrations').select('name').orderBy('name').execute()
    expect(history.map((h) => h.name)).toEqual(['one', 'two'])
  })

  test('a migration that fails leaves the database as it was and says which one failed', async () => {
    const broken: Migration = {
      name: 'two_broken',
      up: async (db) => {
        await db.schema.createTable('half_done').addColumn('id', 'integer').execute()
        await sql`THIS IS NOT SQL`.execute(db)
      },
    }
    const error = await migrate(database.db, [createTable('one'), broken]).catch((e) => e)
    expect(error).toBeInstanceOf(MigrationError)
    expect(error.migration).toBe('two_broken')
    expect(error.message).toContain('two_broken')
    expect(await tables()).toEqual(['migrations', 'one'])
    const history = await database.db.selectFrom('migrations').select('name').execute()
    expect(history.map((h) => h.name)).toEqual(['one'])
  })

  // Rebuilding a table (foreign keys off, checked before the commit) is what SQLite's ALTER TABLE lacks; PostgreSQL alters in place.
  test.skipIf(onPostgres)('a migration that rebuilds a table others refer to keeps the rows that refer to it', async () => {
    const parents: Migration = {
      name: 'parents',
      up: async (db) => {
        await sql`CREATE TABLE parent (id INTEGER PRIMARY KEY, v TEXT)`.execute(db)
        await sql`CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE)`.execute(db)
        await sql`INSERT INTO parent VALUES (1, 'a')`.execute(db)
        await sql`INSERT INTO child VALUES (10, 1)`.execute(db)
      },
    }
    const rebuild: Migration = {
      name: 'rebuild',
      rebuildsTables: true,
      up: async (db) => {
        await sql`CREATE TABLE parent_new (id INTEGER PRIMARY KEY, v BLOB)`.execute(db)
        await sql`INSERT INTO parent_new SELECT id, jsonb('{}') FROM parent`.execute(db)
        await sql`DROP TABLE parent`.execute(db)
        await sql`ALTER TABLE parent_new RENAME TO parent`.execute(db)
      },
    }
    await migrate(database.db, [parents, rebuild])
    const children = await sql<{ id: number }>`SELECT id FROM child`.execute(database.db)
    expect(children.rows).toEqual([{ id: 10 }])
    const fk = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(database.db)
    expect(fk.rows[0]!.foreign_keys).toBe(1)
  })

  // SQLite's rebuild again: the foreign key check before the commit.
  test.skipIf(onPostgres)('a rebuild that would leave rows pointing nowhere is rolled back', async () => {
    const parents: Migration = {
      name: 'parents',
      up: async (db) => {
        await sql`CREATE TABLE parent (id INTEGER PRIMARY KEY)`.execute(db)
        await sql`CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id))`.execute(db)
        await sql`INSERT INTO parent VALUES (1)`.execute(db)
        await sql`INSERT INTO child VALUES (10, 1)`.execute(db)
      },
    }
    const lossy: Migration = { name: 'lossy', rebuildsTables: true, up: async (db) => void (await sql`DELETE FROM parent`.execute(db)) }
    const error = await migrate(database.db, [parents, lossy]).catch((e) => e)
    expect(error).toBeInstanceOf(MigrationError)
    expect(error.message).toContain('foreign keys')
    const left = await sql<{ id: number }>`SELECT id FROM parent`.execute(database.db)
    expect(left.rows).toEqual([{ id: 1 }])
  })

  test('the static list names every migration file, in order', () => {
    const files = readdirSync(join(import.meta.dir, '../../migrations'))
      .filter((file) => /^\d{4}_.+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort()
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files)
  })

  test('the real migrations apply to an empty database', async () => {
    await migrate(database.db, migrationsFor(onPostgres ? 'postgres' : 'sqlite'))
    expect(await tables()).toEqual(expect.arrayContaining(['projects', 'api_keys', 'contacts', 'events']))
  })
})
