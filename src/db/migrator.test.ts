import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { MIGRATIONS } from '../../migrations/index.ts'
import { openDatabase, type Database } from './client.ts'
import { migrate, MigrationError, type Migration } from './migrator.ts'

let database: Database

beforeEach(() => {
  database = openDatabase(':memory:')
})

afterEach(() => database.close())

const tables = async () =>
  (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(database.db)).rows.map(
    (r) => r.name,
  )

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

  test('the static list names every migration file, in order', () => {
    const files = readdirSync(join(import.meta.dir, '../../migrations'))
      .filter((file) => /^\d{4}_.+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort()
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files)
  })

  test('the real migrations apply to an empty database', async () => {
    await migrate(database.db, MIGRATIONS)
    expect(await tables()).toEqual(expect.arrayContaining(['projects', 'api_keys', 'contacts', 'events']))
  })
})
