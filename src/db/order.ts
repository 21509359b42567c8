import { sql, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/**
 * The order rows of `table` (a name or alias) were inserted in, to break ties in an ORDER BY:
 * SQLite's rowid, which every index of the table ends with, so an index that gives the order
 * before it gives this too, without a sort; PostgreSQL's sort keeps no order among ties, and
 * there the table's id, time-ordered (UUIDv7 or an identity), says it.
 */
export const insertionOrder = (db: Db, table: string): RawBuilder<unknown> =>
  dialectOf(db) === 'postgres' ? sql.ref(`${table}.id`) : sql.ref(`${table}.rowid`)
