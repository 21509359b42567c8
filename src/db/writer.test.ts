// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Database as BunDatabase } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { freshPostgres, onPostgres, type TestDatabase } from '../../test/helpers/postgres.ts'
import type { Database } from './client.ts'
import { openPostgres } from './postgres.ts'
import { openSqlite } from './sqlite.ts'
import { createWriter, rowsWait } from './writer.ts'

let path: string
let made: TestDatabase | undefined
let database: Database

beforeEach(async () => {
  if (onPostgres) {
    made = await freshPostgres({ empty: true })
    database = await openPostgres(made.url)
    await sql`CREATE TABLE items (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL UNIQUE)`.execute(database.db)
  } else {
    path = join(mkdtempSync(join(tmpdir(), 'mailstead-writer-')), 'test.db')
    database = openSqlite(path)
    await sql`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`.execute(database.db)
  }
})

afterEach(async () => {
  await database.close()
  await made?.drop()
})

/** The names in the table, read on a connection of its own. */
async function namesSeenElsewhere(): Promise<string[]> {
  if (!onPostgres) {
    const other = new BunDatabase(path, { readonly: true })
    try {
      return other.query<{ name: string }, []>('SELECT name FROM items ORDER BY name').all().map((r) => r.name)
    } finally {
      other.close()
    }
  }
  const other = await openPostgres(made!.url)
  try {
    return (await sql<{ name: string }>`SELECT name FROM items ORDER BY name`.execute(other.db)).rows.map((r) => r.name)
  } finally {
    await other.close()
  }
}

const insert = (name: string) => async (trx: typeof database.db) => {
  await sql`INSERT INTO items (name) VALUES (${name})`.execute(trx)
  return name
}

describe('the group-commit writer', () => {
  test('concurrent writes are committed together, in fewer transactions than writes', async () => {
    const writer = createWriter(database.db)
    const names = Array.from({ length: 200 }, (_, i) => `item-${i}`)
    expect(await Promise.all(names.map((name) => writer.run(insert(name))))).toEqual(names)
    const { batches, operations } = writer.stats()
    expect(operations).toBe(200)
    expect(batches).toBeLessThan(10)
  })

  test('a write is visible to another connection as soon as its promise resolves', async () => {
    const writer = createWriter(database.db)
    await writer.run(insert('durable'))
    expect(await namesSeenElsewhere()).toEqual(['durable'])
  })

  test('a failing write is rolled back alone; its neighbours commit', async () => {
    const writer = createWriter(database.db)
    const results = await Promise.allSettled([
      writer.run(insert('a')),
      writer.run(async (trx) => {
        await insert('b')(trx)
        throw new Error('boom')
      }),
      writer.run(insert('a')), // unique violation
      writer.run(insert('c')),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled'])
    const rows = await sql<{ name: string }>`SELECT name FROM items ORDER BY name`.execute(database.db)
    expect(rows.rows.map((r) => r.name)).toEqual(['a', 'c'])
  })

  test('drain waits for queued writes', async () => {
    const writer = createWriter(database.db)
    void writer.run(insert('late'))
    await writer.drain()
    const rows = await sql<{ n: number }>`SELECT count(*) AS n FROM items`.execute(database.db)
    expect(rows.rows[0]!.n).toBe(1)
  })

  test('rows said to wait wake their table\'s worker once the transaction committed, and only then', async () => {
    const woken: string[] = []
    const writer = createWriter(database.db, { wake: (table) => void woken.push(table) })
    await writer.run(async (trx) => {
      await insert('waiting')(trx)
      rowsWait(trx, 'webhook_deliveries')
      expect(woken).toEqual([])
    })
    expect(woken).toEqual(['webhook_deliveries'])
    // Outside the writer nobody listens: nothing happens.
    rowsWait(database.db, 'webhook_deliveries')
    expect(woken).toHaveLength(1)
  })

  test('the wake names the projects whose rows wait when every operation said, and none when one did not', async () => {
    const woken: Array<[string, number[] | null]> = []
    const writer = createWriter(database.db, { wake: (table, projects) => void woken.push([table, projects && [...projects].sort()]) })
    const waits = (table: 'deliveries' | 'campaigns', projectId?: number) => async (trx: typeof database.db) => rowsWait(trx, table, projectId)
    await Promise.all([writer.run(waits('deliveries', 2)), writer.run(waits('deliveries', 1)), writer.run(waits('deliveries', 2)), writer.run(waits('campaigns'))])
    expect(woken).toEqual([
      ['deliveries', [1, 2]],
      ['campaigns', null],
    ])
    woken.length = 0
    await Promise.all([writer.run(waits('deliveries', 1)), writer.run(waits('deliveries')), writer.run(waits('deliveries', 3))])
    expect(woken).toEqual([['deliveries', null]])
  })
})

describe.skipIf(!onPostgres)('two processes\' writers on PostgreSQL', () => {
  test('batches that lock the same rows in opposite orders: the deadlock\'s victim runs again in the next batch, and every write succeeds', async () => {
    await sql`INSERT INTO items (name) VALUES ('x'), ('y')`.execute(database.db)
    const other = await openPostgres(made!.url)
    try {
      // Each first write holds its row a moment, so that both batches hold one row and want the other.
      const touch = (name: string, pause: number) => async (trx: typeof database.db) => {
        await sql`UPDATE items SET name = name WHERE name = ${name}`.execute(trx)
        if (pause) await sql`SELECT pg_sleep(${pause})`.execute(trx)
        return name
      }
      const one = createWriter(database.db)
      const two = createWriter(other.db)
      const results = await Promise.allSettled([one.run(touch('x', 0.3)), one.run(touch('y', 0)), two.run(touch('y', 0.3)), two.run(touch('x', 0))])
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual(['x', 'y', 'y', 'x'])
      // One of the four ran in a second batch of its writer.
      expect(one.stats().batches + two.stats().batches).toBe(3)
    } finally {
      await other.close()
    }
  })
})
