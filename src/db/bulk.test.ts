import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { MIGRATIONS } from '../../migrations/index.ts'
import type { Database } from './client.ts'
import { openSqlite } from './sqlite.ts'
import { insertMany, rowValue, updateMany } from './bulk.ts'
import { migrate } from './migrator.ts'

let database: Database

beforeEach(async () => {
  database = openSqlite(':memory:')
  await migrate(database.db, MIGRATIONS)
  await database.db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
})

afterEach(() => database.close())

const contact = (n: number, data: object) => ({ id: `id-${n}`, project_id: 1, email: `u${n}@x.com`, email_key: `u${n}@x.com`, subscribed: n % 2, data, created_at: n, updated_at: n })
const columns = ['id', 'project_id', 'email', 'email_key', 'subscribed', 'data', 'created_at', 'updated_at'] as const

describe('insertMany', () => {
  test('inserts every row with its values and types, JSON columns as JSONB', async () => {
    await insertMany(database.db, 'contacts', columns, [contact(1, { a: 1, b: [true, 'x'] }), contact(2, {})], { jsonb: ['data'] })
    const rows = await sql<any>`SELECT id, subscribed, typeof(subscribed) t, json(data) data, typeof(data) dt FROM contacts ORDER BY id`.execute(database.db)
    expect(rows.rows).toEqual([
      { id: 'id-1', subscribed: 1, t: 'integer', data: '{"a":1,"b":[true,"x"]}', dt: 'blob' },
      { id: 'id-2', subscribed: 0, t: 'integer', data: '{}', dt: 'blob' },
    ])
  })

  test('takes what follows the rows: a conflict clause and RETURNING', async () => {
    await insertMany(database.db, 'contacts', columns, [contact(1, { a: 1 })], { jsonb: ['data'] })
    const returned = await insertMany<'contacts', { id: string }>(database.db, 'contacts', columns, [contact(1, { a: 2 }), contact(3, {})], {
      jsonb: ['data'],
      then: sql`ON CONFLICT (project_id, email_key) DO NOTHING RETURNING id`,
    })
    expect(returned).toEqual([{ id: 'id-3' }])
  })

  test('inserts only the rows a condition on their fields lets through', async () => {
    await insertMany(database.db, 'contacts', columns, [contact(1, {}), contact(2, {}), contact(3, {})], { jsonb: ['data'], where: sql`${rowValue('subscribed')} = 1` })
    const rows = await database.db.selectFrom('contacts').select('id').orderBy('id').execute()
    expect(rows.map((r) => r.id)).toEqual(['id-1', 'id-3'])
  })

  test('does nothing for no rows', async () => {
    expect(await insertMany(database.db, 'contacts', columns, [])).toEqual([])
  })
})

describe('updateMany', () => {
  test('gives each matched row its own values and leaves the others alone', async () => {
    await insertMany(database.db, 'contacts', columns, [contact(1, {}), contact(2, {}), contact(3, {})], { jsonb: ['data'] })
    await updateMany(database.db, 'contacts', ['id'], ['email', 'subscribed'], [
      { id: 'id-1', email: 'one@x.com', subscribed: 1 },
      { id: 'id-3', email: 'three@x.com', subscribed: 0 },
    ])
    const rows = await database.db.selectFrom('contacts').select(['id', 'email', 'subscribed']).orderBy('id').execute()
    expect(rows).toEqual([
      { id: 'id-1', email: 'one@x.com', subscribed: 1 },
      { id: 'id-2', email: 'u2@x.com', subscribed: 0 },
      { id: 'id-3', email: 'three@x.com', subscribed: 0 },
    ])
  })
})
