import { sql, type SelectQueryBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/*
 * The locks a read-then-write takes where several processes write at once (PostgreSQL). SQLite's
 * write transactions each hold the whole database from their start (BEGIN IMMEDIATE), so there
 * each of these is the statement as it was, or nothing. Work rows are claimed in src/db/claims.ts.
 */

/**
 * Holds the lock named `name` until the transaction `trx` ends, so that a read-then-write keyed by
 * that name runs one at a time: a second waits, then reads what the first committed. On
 * PostgreSQL, a transaction-scoped advisory lock on the name's hash.
 */
export async function lockName(trx: Db, name: string): Promise<void> {
  if (dialectOf(trx) === 'sqlite') return
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx)
}

/**
 * `query` taking a row lock on what it reads, until the transaction ends (`FOR UPDATE` on
 * PostgreSQL), so that a read-then-write of that row in another process waits for this one.
 */
export function lockedRow<D, TB extends keyof D, O>(db: Db, query: SelectQueryBuilder<D, TB, O>): SelectQueryBuilder<D, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate() : query
}

/** What runs a write: the group-commit writer's `run`, or a function like it. */
export type Write = <T>(operation: (trx: Db) => Promise<T>) => Promise<T>

/**
 * How to run a short compare-and-set write of a row that every process changes often (a shared
 * rate limit's). On SQLite, in the group-commit writer's batch: it is the one writer there, and
 * the write costs no commit of its own. On PostgreSQL, alone and outside any transaction, each
 * statement committing at once: inside a batch the row's lock would be held until the batch
 * commits, stalling the other processes, and could deadlock with a batch of theirs that locks
 * the same rows in another order. The operation must be correct statement by statement (a
 * compare-and-set retried when it loses), as it is not one transaction on PostgreSQL.
 */
export function contendedWrite(db: Db, write: Write): Write {
  return dialectOf(db) === 'postgres' ? (operation) => operation(db) : write
}
