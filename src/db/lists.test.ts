// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { openTestDatabase } from '../../test/helpers/postgres.ts'
import { jsonArrayOfRows } from './aggregate.ts'
import type { Database } from './client.ts'
import { recordTable, textsIn } from './lists.ts'
import { insertionOrder } from './order.ts'
import { newId } from '../lib/ids.ts'

let database: Database
const first = newId()
const second = newId()

beforeAll(async () => {
  database = await openTestDatabase()
  const { db } = database
  await db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
  await db.insertInto('webhooks').values({ id: 'w', project_id: 1, url: 'https://x.example', events: '["*"]', enabled: 1, disabled_reason: null, signing_secret: 's', previous_secret: null, previous_secret_until: null, created_at: 1, updated_at: 1 }).execute()
  // Two due at the same time; ids made as the app makes them (time-ordered).
  for (const [id, at] of [[first, 5], [second, 5], ['d1', 7]] as const) {
    await db
      .insertInto('webhook_deliveries')
      .values({ id, webhook_id: 'w', event_id: 'e', type: 'contact.created', payload: '{}', state: 'pending', next_attempt_at: at, created_at: 1, updated_at: 1 })
      .execute()
  }
})

afterAll(() => database.close())

describe('textsIn', () => {
  test('is the strings of a list, for IN, however many', async () => {
    const { db } = database
    const found = (ids: string[]) => db.selectFrom('webhook_deliveries').select('id').where('id', 'in', textsIn(db, ids)).orderBy('id').execute()
    expect(await found(['d1', second, 'nope'])).toEqual([{ id: second }, { id: 'd1' }])
    expect(await found([])).toEqual([])
  })
})

describe('recordTable', () => {
  test('joins a list of records by their fields, text and numbers typed as asked; a missing field is null', async () => {
    const { db } = database
    const j = recordTable(db, 'j', { id: 'text', before: 'bigint' }, [{ id: 'd1', before: 6 }, { id: first, before: 5 }, { id: second }])
    const rows = await sql<{ id: string; before: number | null }>`
      SELECT d.id, ${j.field('before')} AS before FROM webhook_deliveries d
      JOIN ${j.table} ON d.id = ${j.field('id')} AND (${j.field('before')} IS NULL OR d.next_attempt_at <= ${j.field('before')})
      ORDER BY d.next_attempt_at, d.id`.execute(db)
    expect(rows.rows).toEqual([
      { id: first, before: 5 },
      { id: second, before: null },
    ])
  })
})

describe('jsonArrayOfRows and insertionOrder', () => {
  const due = (before: number) =>
    sql<{ due: string }>`SELECT (SELECT ${jsonArrayOfRows(database.db, [sql.ref('x.id'), sql.ref('x.next_attempt_at')])} FROM (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d WHERE d.next_attempt_at <= ${before}
      ORDER BY d.next_attempt_at, ${insertionOrder(database.db, 'd')}) x) AS due`.execute(database.db)

  test('gathers rows as JSON text of arrays, ties in the order the rows were made', async () => {
    expect(JSON.parse((await due(10)).rows[0]!.due)).toEqual([
      [first, 5],
      [second, 5],
      ['d1', 7],
    ])
  })

  test('gathers no rows as an empty array, not null', async () => {
    expect((await due(0)).rows[0]!.due).toBe('[]')
  })
})
