import { sql, type AliasedRawBuilder, type RawBuilder, type SqlBool } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/*
 * Reading an append-only table (events, email_events) by a cursor without passing over a row that
 * commits late (migration 0023). On SQLite rows commit in id order, so the cursor is the id. On
 * PostgreSQL each row carries its transaction's id (`commit_order`, xid8): a reader takes only
 * rows whose transaction is older than every transaction still running (so none of them can
 * still commit a row before it) in (commit_order, id) order, and a cursor is that pair. A row
 * that commits later belongs to a transaction that was running, whose id is at least the oldest
 * running one: it sorts after everything read, whatever its id.
 *
 * Transaction ids are the whole server's, and the server may hold other applications' databases:
 * a long transaction in one of them must not hold our readers back. So the horizon leaves out the
 * running transactions that pg_stat_activity shows in another database (a transaction stays in
 * its database, so that much is certain); any it cannot place (hidden from this role, begun or
 * ended since) still counts, which only ever makes the horizon earlier, never wrong.
 */

/** Where a reader stands: the last row read, and on PostgreSQL its commit order ('0' on SQLite). */
export interface EventCursor {
  id: number
  order: string
}

export const START: EventCursor = { id: 0, order: '0' }

export type CursorTable = 'events' | 'email_events'

const postgres = (db: Db) => dialectOf(db) === 'postgres'

/** The oldest transaction still running that may yet commit rows of this database (the next one when none runs), as xid8. */
const HORIZON = sql`COALESCE(
  (SELECT min(running) FROM pg_snapshot_xip(pg_current_snapshot()) AS running
   WHERE CAST(CAST(running AS text) AS bigint) % 4294967296 NOT IN (
     SELECT CAST(CAST(backend_xid AS text) AS bigint) FROM pg_stat_activity
     WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database())),
  pg_snapshot_xmax(pg_current_snapshot()))`

/** Rows of `alias` (an events table) that come after `cursor` and whose transaction has ended, for a WHERE. */
export function committedAfter(db: Db, alias: string, cursor: EventCursor): RawBuilder<SqlBool> {
  const id = sql.ref(`${alias}.id`)
  if (!postgres(db)) return sql<SqlBool>`${id} > ${cursor.id}`
  const order = sql.ref(`${alias}.commit_order`)
  return sql<SqlBool>`(${order}, ${id}) > (CAST(${cursor.order} AS xid8), ${cursor.id}) AND ${order} < ${HORIZON}`
}

/** Rows of `alias` up to and including `cursor`, for a WHERE (beside committedAfter). */
export function upTo(db: Db, alias: string, cursor: EventCursor): RawBuilder<SqlBool> {
  const id = sql.ref(`${alias}.id`)
  if (!postgres(db)) return sql<SqlBool>`${id} <= ${cursor.id}`
  return sql<SqlBool>`(${sql.ref(`${alias}.commit_order`)}, ${id}) <= (CAST(${cursor.order} AS xid8), ${cursor.id})`
}

/** The order rows are read in: an ORDER BY list. */
export function readingOrder(db: Db, alias: string): RawBuilder<unknown> {
  return postgres(db) ? sql`${sql.ref(`${alias}.commit_order`)}, ${sql.ref(`${alias}.id`)}` : sql`${sql.ref(`${alias}.id`)}`
}

/** A selection of the row's commit order as text, named `commit_order` ('0' on SQLite). */
export function commitOrderOf(db: Db, alias: string): AliasedRawBuilder<string, 'commit_order'> {
  return postgres(db) ? sql<string>`CAST(${sql.ref(`${alias}.commit_order`)} AS text)`.as('commit_order') : sql<string>`'0'`.as('commit_order')
}

/** The cursor a read row leaves: its id and commit order. */
export const cursorAt = (row: { id: number; commit_order: string }): EventCursor => ({ id: row.id, order: row.commit_order })

/** The last row of `table` a reader may read now (START when there is none): where a reader that skips everything goes. */
export async function lastSettled(db: Db, table: CursorTable): Promise<EventCursor> {
  const settled = postgres(db) ? sql`WHERE t.commit_order < ${HORIZON} ORDER BY t.commit_order DESC, t.id DESC` : sql`ORDER BY t.id DESC`
  const found = await sql<{ id: number; commit_order: string }>`SELECT t.id, ${commitOrderOf(db, 't')} FROM ${sql.table(table)} AS t ${settled} LIMIT 1`.execute(db)
  return found.rows[0] ? cursorAt(found.rows[0]) : START
}

/** Whether `a` is past `b`. */
export const isAfter = (a: EventCursor, b: EventCursor): boolean => {
  const [x, y] = [BigInt(a.order), BigInt(b.order)]
  return x !== y ? x > y : a.id > b.id
}
