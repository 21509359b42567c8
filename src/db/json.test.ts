// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { onPostgres, openTestDatabase } from '../../test/helpers/postgres.ts'
import type { Database } from './client.ts'
import { jsonEntries, jsonFromPatch, jsonMergePatch, jsonText } from './json.ts'

let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
  await database.db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
})

afterAll(() => database.close())

let n = 0

/** JSON text stored as it is, nulls and all (jsonFromPatch would drop them). */
const stored = (json: string) => (onPostgres ? sql<Uint8Array>`CAST(${json} AS jsonb)` : sql<Uint8Array>`jsonb(${json})`)

/** A contact whose data is `target`, then `patch` merged in: its data as it reads after. */
async function merged(target: unknown, patch: string | null): Promise<unknown> {
  const id = `c${++n}`
  await database.db
    .insertInto('contacts')
    .values({ id, project_id: 1, email: `${id}@x.com`, email_key: `${id}@x.com`, subscribed: 1, data: stored(JSON.stringify(target)), created_at: 1, updated_at: 1 })
    .execute()
  await database.db.updateTable('contacts').set({ data: jsonMergePatch('data', patch) }).where('id', '=', id).execute()
  const row = await database.db.selectFrom('contacts').select(jsonText('data').as('data')).where('id', '=', id).executeTakeFirstOrThrow()
  return JSON.parse(row.data)
}

describe('jsonMergePatch: RFC 7396, on either database', () => {
  // RFC 7396, appendix A, where the target is an object (contact data always is), and cases of nesting.
  test.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    [{ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: { f: null, g: [null] } } }, { a: 1, b: { d: 3, e: { g: [null] } } }],
    [{ a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
    [{ a: { b: 1 } }, { a: 2 }, { a: 2 }],
    [{ n: 1, t: true }, { n: 1.5, t: false, s: 'é \u{1F600}' }, { n: 1.5, t: false, s: 'é \u{1F600}' }],
  ])('%j merged with %j is %j', async (target, patch, result) => {
    expect(await merged(target, JSON.stringify(patch))).toEqual(result)
  })

  test('a JSON null replaces the whole value; SQL NULL changes nothing', async () => {
    expect(await merged({ a: 'foo' }, 'null')).toBeNull()
    expect(await merged({ a: 'foo', b: { c: null } }, null)).toEqual({ a: 'foo', b: { c: null } })
  })

  test('32 levels of objects merge all the way down', async () => {
    const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { k: nested(depth - 1, leaf), [`at${depth}`]: depth })
    expect(await merged(nested(31, 'old'), JSON.stringify(nested(31, 'new')))).toEqual(nested(31, 'new'))
  })
})

describe('jsonFromPatch', () => {
  test('a first write drops the nulls of the patch, at every level', async () => {
    const row = await sql<{ data: string }>`SELECT ${jsonText('x')} AS data FROM (SELECT ${jsonFromPatch('{"a":null,"b":{"c":null,"d":1},"e":[null]}')} AS x) AS t`.execute(database.db)
    expect(JSON.parse(row.rows[0]!.data)).toEqual({ b: { d: 1 }, e: [null] })
  })
})

describe('jsonEntries', () => {
  test('lists the keys and values of a stored object', async () => {
    await database.db
      .insertInto('contacts')
      .values({ id: 'entries', project_id: 1, email: 'e@x.com', email_key: 'e@x.com', subscribed: 1, data: jsonFromPatch('{"b":1,"a":"x"}'), created_at: 1, updated_at: 1 })
      .execute()
    const rows = await sql<{ key: string }>`SELECT j.key AS key FROM contacts c, ${jsonEntries(database.db, 'c.data')} AS j WHERE c.id = 'entries'`.execute(database.db)
    expect(rows.rows.map((r) => r.key).sort()).toEqual(['a', 'b'])
  })
})
