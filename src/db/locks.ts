import { sql } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/**
 * Holds the lock named `name` until the transaction `trx` ends, so that a read-then-write keyed by
 * that name runs one at a time: a second waits, then reads what the first committed. On SQLite
 * every write transaction holds the database's one write lock from its start (BEGIN IMMEDIATE):
 * there is nothing more to take. On PostgreSQL, a transaction-scoped advisory lock on the name's hash.
 */
export async function lockName(trx: Db, name: string): Promise<void> {
  if (dialectOf(trx) === 'sqlite') return
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx)
}
