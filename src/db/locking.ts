import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { dialectOf } from './client.ts'
import type { DB, Db } from './schema.ts'

/*
 * The locks a read-then-write takes where several processes write at once (PostgreSQL). SQLite's
 * write transactions each hold the whole database from their start (BEGIN IMMEDIATE), so there
 * each of these is the statement as it was, or nothing.
 */

/** A query of the ids of rows chosen to be claimed. */
export type PickedIds = SelectQueryBuilder<DB, any, { id: number }>

/**
 * The ids a claiming statement (`UPDATE table SET ... WHERE id IN (these) RETURNING ...`) may take
 * of those `picked` chose from `table`.
 *
 * On SQLite, `picked` as it is: the claim runs in the one writer's transaction, which holds the
 * whole database, so nobody else can take a row between the choice and the update.
 *
 * On PostgreSQL several processes claim at once. The chosen rows are read again and locked
 * (`FOR UPDATE SKIP LOCKED`: a row another transaction holds is skipped, not waited for), and a
 * row is kept only if `still` holds of it: PostgreSQL checks it again on the row's newest version
 * once it has the lock, which leaves out a row that another process claimed and committed after
 * `picked` read it. The locks last until the claim's transaction ends. A claim may so take fewer
 * rows than were chosen, never a row twice.
 */
export function claimable(db: Db, table: 'deliveries', picked: PickedIds, still: Expression<SqlBool>): PickedIds {
  if (dialectOf(db) === 'sqlite') return picked
  return db.selectFrom(table).select('id').where('id', 'in', picked).where(still).forUpdate().skipLocked()
}

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
