import type { Db } from '../db/schema.ts'

/*
 * The leases table's owner. A lease names the process that runs a singleton until a time; the
 * same statement takes a free or expired lease and renews one's own, on both dialects.
 */

/**
 * Takes the lease `name` for `owner` until `now + ttlMs` when it is free, expired or already
 * `owner`'s; answers whether `owner` holds it now. One upsert, so two processes asking at once
 * cannot both be told yes: on PostgreSQL the second waits for the first's row lock and then sees
 * its lease unexpired; on SQLite writes are serial.
 */
export async function holdLease(db: Db, name: string, owner: string, now: number, ttlMs: number): Promise<boolean> {
  const row = await db
    .insertInto('leases')
    .values({ name, owner, expires_at: now + ttlMs })
    .onConflict((conflict) =>
      conflict
        .column('name')
        .doUpdateSet({ owner, expires_at: now + ttlMs })
        .where((eb) => eb.or([eb('leases.owner', '=', owner), eb('leases.expires_at', '<=', now)])),
    )
    .returning('owner')
    .executeTakeFirst()
  return row?.owner === owner
}

/** Gives the lease up at once (a stop), so another process need not wait for it to expire. */
export async function releaseLease(db: Db, name: string, owner: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', owner).execute()
}

/** Every lease, for operators: who runs what, until when. */
export const listLeases = (db: Db) => db.selectFrom('leases').selectAll().orderBy('name').execute()
