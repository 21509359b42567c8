import type { SelectQueryBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/**
 * `query` taking a row lock on what it reads, until the transaction ends: on PostgreSQL
 * `FOR UPDATE`, so that a read-then-write in another process waits for this one. SQLite's
 * writers hold the whole database (BEGIN IMMEDIATE), so there the query is as it was.
 */
export function lockedRow<DB, TB extends keyof DB, O>(db: Db, query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate() : query
}
