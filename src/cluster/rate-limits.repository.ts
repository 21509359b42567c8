import type { Db } from '../db/schema.ts'

/*
 * The rate_limits table's owner (migration 0026). A row is one budget's state for one key, a short
 * text that the shared windows and buckets read and write; this module knows nothing of what it
 * says.
 */

/** A row's new state, when nothing in it counts any more, and what the change answers its caller. */
export interface RateChange<R> {
  /** Undefined: the row stays as it is (nothing is written). */
  state?: string
  expiresAt: number
  result: R
}

/** Tries of a compare-and-set that other processes keep winning before giving up: far more than contention gives. */
const MAX_TRIES = 50

/** The state of the row of `budget` and `key`, if there is one. */
export async function readRateLimit(db: Db, budget: string, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('rate_limits').select('state').where('budget', '=', budget).where('key', '=', key).executeTakeFirst()
  return row?.state
}

/**
 * Changes the row of `budget` and `key` by `change`, a pure function of its state (undefined
 * while there is no row). Compare-and-set on the row's version: when another process changed the
 * row between the read and the write, the write changes nothing and `change` runs again on what
 * that process left, so no process's change is lost or counted on a state it did not see. Inside
 * a transaction that holds the database (SQLite's writer) the first try always wins.
 */
export async function changeRateLimit<R>(db: Db, budget: string, key: string, change: (state: string | undefined) => RateChange<R>): Promise<R> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const row = await db.selectFrom('rate_limits').select(['state', 'version']).where('budget', '=', budget).where('key', '=', key).executeTakeFirst()
    const next = change(row?.state)
    if (next.state === undefined || next.state === row?.state) return next.result
    if (!row) {
      const inserted = await db
        .insertInto('rate_limits')
        .values({ budget, key, state: next.state, version: 1, expires_at: next.expiresAt })
        .onConflict((conflict) => conflict.columns(['budget', 'key']).doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return next.result
      continue
    }
    const updated = await db
      .updateTable('rate_limits')
      .set({ state: next.state, version: row.version + 1, expires_at: next.expiresAt })
      .where('budget', '=', budget)
      .where('key', '=', key)
      .where('version', '=', row.version)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) === 1) return next.result
  }
  throw new Error(`The rate limit ${budget} of ${key} kept changing under this process: ${MAX_TRIES} tries lost`)
}

/** Deletes the rows whose state no longer counts at `now`; answers how many. */
export async function pruneRateLimits(db: Db, now: number): Promise<number> {
  const deleted = await db.deleteFrom('rate_limits').where('expires_at', '<', now).executeTakeFirst()
  return Number(deleted.numDeletedRows)
}
