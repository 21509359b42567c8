// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { onPostgres, openTestDatabase } from '../../test/helpers/postgres.ts'
import type { Database } from './client.ts'
import { insertMany, rowValue, updateMany } from './bulk.ts'
import { jsonText } from './json.ts'

let database: Database

beforeEach(async () => {
  database = await openTestDatabase()
  await database.db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
})

afterEach(() => database.close())

const contact = (n: number, data: object) => ({ id: `id-${n}`, project_id: 1, email: `u${n}@x.com`, email_key: `u${n}@x.com`, subscribed: n % 2, data, created_at: n, updated_at: n })
const columns = ['id', 'project_id', 'email', 'email_key', 'subscribed', 'data', 'created_at', 'updated_at'] as const

describe('insertMany', () => {
  test('inserts every row with its values and types, JSON columns as binary JSON', async () => {
    await insertMany(database.db, 'contacts', columns, [contact(1, { a: 1, b: [true, 'x'] }), contact(2, {})], { jsonb: ['data'] })
    const rows = await database.db.selectFrom('contacts').select(['id', 'subscribed', 'created_at', jsonText('data').as('data')]).orderBy('id').execute()
    expect(rows.map((row) => ({ ...row, data: JSON.parse(row.data) }))).toEqual([
      { id: 'id-1', subscribed: 1, created_at: 1, data: { a: 1, b: [true, 'x'] } },
      { id: 'id-2', subscribed: 0, created_at: 2, data: {} },
    ])
    const types = onPostgres
      ? sql<any>`SELECT pg_typeof(subscribed)::text t, pg_typeof(data)::text dt FROM contacts`
      : sql<any>`SELECT typeof(subscribed) t, typeof(data) dt FROM contacts`
    expect((await types.execute(database.db)).rows[0]).toEqual(onPostgres ? { t: 'bigint', dt: 'jsonb' } : { t: 'integer', dt: 'blob' })
  })

  test('true and false of a row are 1 and 0; inside a JSON value they stay', async () => {
    await insertMany(database.db, 'contacts', columns, [{ ...contact(1, { on: true }), subscribed: true }, { ...contact(2, { on: false }), subscribed: false }], { jsonb: ['data'] })
    const rows = await database.db.selectFrom('contacts').select(['subscribed', jsonText('data').as('data')]).orderBy('id').execute()
    expect(rows.map((row) => [row.subscribed, JSON.parse(row.data)])).toEqual([
      [1, { on: true }],
      [0, { on: false }],
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

  test('an object or array for a column that is not JSON is stored as its JSON text', async () => {
    await insertMany(database.db, 'contacts', columns, [contact(1, {})], { jsonb: ['data'] })
    const event = { project_id: 1, contact_id: 'id-1', name: 'e', data: { a: [1, true], b: 'x' }, created_at: 1 }
    await insertMany(database.db, 'events', ['project_id', 'contact_id', 'name', 'data', 'created_at'], [event])
    expect(await database.db.selectFrom('events').select('data').execute()).toEqual([{ data: '{"a":[1,true],"b":"x"}' }])
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
