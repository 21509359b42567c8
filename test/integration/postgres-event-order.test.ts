// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import pg from 'pg'
import { commitOrderOf, committedAfter, cursorAt, lastSettled, readingOrder, START, type EventCursor } from '../../src/db/event-cursors.ts'
import type { Database } from '../../src/db/client.ts'
import { openPostgres } from '../../src/db/postgres.ts'
import { freshPostgres, type TestDatabase } from '../helpers/postgres.ts'

// Two transactions on PostgreSQL committing events out of id order, and a reader by cursor.
let made: TestDatabase
let database: Database
const clients: pg.Client[] = []

beforeAll(async () => {
  made = await freshPostgres()
  database = await openPostgres(made.url)
  await sql`INSERT INTO projects (id, name, created_at, updated_at) VALUES (1, 'P', 1, 1)`.execute(database.db)
  await sql`INSERT INTO contacts (id, project_id, email, email_key, subscribed, created_at, updated_at) VALUES ('c', 1, 'a@b.example', 'a@b.example', 1, 1, 1)`.execute(database.db)
})

afterAll(async () => {
  for (const client of clients) await client.end()
  await database.close()
  await made.drop()
})

async function connection() {
  const client = new pg.Client({ connectionString: made.url })
  await client.connect()
  clients.push(client)
  return client
}

/** Inserts an event on `client` (in its open transaction, if any); answers its id. */
const insertEvent = async (client: pg.Client, name: string) =>
  Number((await client.query(`INSERT INTO events (project_id, contact_id, name, created_at) VALUES (1, 'c', $1, 1) RETURNING id`, [name])).rows[0].id)

/** What a reader at `cursor` reads now: the names, and the cursor it leaves. */
async function read(cursor: EventCursor): Promise<{ names: string[]; cursor: EventCursor }> {
  const rows = await database.db
    .selectFrom('events as ev')
    .select(['ev.id', 'ev.name', commitOrderOf(database.db, 'ev')])
    .where(committedAfter(database.db, 'ev', cursor))
    .orderBy(readingOrder(database.db, 'ev'))
    .execute()
  return { names: rows.map((r) => r.name), cursor: rows.length > 0 ? cursorAt(rows.at(-1)!) : cursor }
}

describe('a reader by cursor never passes over an event that commits late', () => {
  test('a later id committed first is not read until the earlier one commits; then both are, the earlier first', async () => {
    const [a, b] = [await connection(), await connection()]
    await a.query('BEGIN')
    const first = await insertEvent(a, 'first')
    const second = await insertEvent(b, 'second')
    expect(second).toBeGreaterThan(first)

    let at = await read(START)
    // "second" is committed, but "first" may still commit before it: nothing is read yet.
    expect(at.names).toEqual([])
    expect(await lastSettled(database.db, 'events')).toEqual(START)

    await a.query('COMMIT')
    at = await read(at.cursor)
    expect(at.names).toEqual(['first', 'second'])
    expect(await read(at.cursor)).toEqual({ names: [], cursor: at.cursor })
  })

  test('an event with a smaller id whose transaction began later, committed after the cursor passed a larger id, is still read', async () => {
    const [older, younger] = [await connection(), await connection()]
    let at = await read(START)
    at = await read(at.cursor)
    // The older transaction has its id (a first write) before the younger one takes the smaller event id.
    await older.query('BEGIN')
    await older.query(`UPDATE projects SET updated_at = 2 WHERE id = 1`)
    await younger.query('BEGIN')
    const small = await insertEvent(younger, 'small id, younger transaction')
    const large = await insertEvent(older, 'large id, older transaction')
    expect(large).toBeGreaterThan(small)
    await older.query('COMMIT')

    // The older transaction's event is settled only once nothing older runs: the younger one is newer, so it is read now.
    at = await read(at.cursor)
    expect(at.names).toEqual(['large id, older transaction'])

    await younger.query('COMMIT')
    at = await read(at.cursor)
    expect(at.names).toEqual(['small id, younger transaction'])
  })

  test('lastSettled is where a reader that skips everything goes: past every settled event, short of a running one', async () => {
    const a = await connection()
    const before = await lastSettled(database.db, 'events')
    await a.query('BEGIN')
    await insertEvent(a, 'running')
    expect(await lastSettled(database.db, 'events')).toEqual(before)
    await a.query('COMMIT')
    const after = await lastSettled(database.db, 'events')
    expect((await read(after)).names).toEqual([])
    expect((await read(before)).names).toEqual(['running'])
  })

  test("a transaction running in another database of the server holds no reader back", async () => {
    const elsewhere = await freshPostgres()
    const foreign = new pg.Client({ connectionString: elsewhere.url })
    await foreign.connect()
    try {
      await foreign.query('BEGIN')
      // A writing transaction (it has an id) in another application's database, left open.
      await foreign.query('SELECT pg_current_xact_id()')
      const { cursor } = await read(START)
      const a = await connection()
      await insertEvent(a, 'beside a foreign transaction')
      expect((await read(cursor)).names).toEqual(['beside a foreign transaction'])
      expect((await read(await lastSettled(database.db, 'events'))).names).toEqual([])
    } finally {
      await foreign.query('ROLLBACK')
      await foreign.end()
      await elsewhere.drop()
    }
  })
})
