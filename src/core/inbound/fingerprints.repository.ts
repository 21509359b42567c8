import type { Db } from '../../db/schema.ts'

/** What a finding is recorded under, to be applied once: its key, and the keys recorded with it. */
export interface Fingerprint {
  key: string
  /** Recorded too when the key is new: what applying this also settles (a hard bounce settles the bounce). */
  covers: string[]
}

/**
 * How long what was applied is remembered. Receivers send a report again within hours or days;
 * past this, the same report applies once more (one event), which bounds what a token's holder
 * can replay to one event per effect a quarter.
 */
export const FINGERPRINTS_KEPT_MS = 90 * 86_400_000
/** Expired fingerprints deleted at each write: more than one is written, so the table never grows past the window. */
const PRUNED_PER_WRITE = 100

/**
 * True the first time a fingerprint is seen (and it is recorded, with what it covers): what makes
 * applying a report idempotent. Fingerprints older than FINGERPRINTS_KEPT_MS are deleted first,
 * a few at a time, so the table holds what the window holds.
 */
export async function firstSighting(db: Db, fingerprint: Fingerprint, now: number): Promise<boolean> {
  await pruneFingerprints(db, now - FINGERPRINTS_KEPT_MS)
  if (!(await record(db, fingerprint.key, now))) return false
  for (const covered of fingerprint.covers) await record(db, covered, now)
  return true
}

async function record(db: Db, fingerprint: string, now: number): Promise<boolean> {
  const result = await db
    .insertInto('inbound_reports')
    .values({ fingerprint, created_at: now })
    .onConflict((oc) => oc.column('fingerprint').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/** Deletes up to PRUNED_PER_WRITE fingerprints recorded before `cutoff`, oldest first (index inbound_reports_created_at). */
async function pruneFingerprints(db: Db, cutoff: number): Promise<void> {
  const expired = db.selectFrom('inbound_reports').select('fingerprint').where('created_at', '<', cutoff).orderBy('created_at').limit(PRUNED_PER_WRITE)
  await db.deleteFrom('inbound_reports').where('fingerprint', 'in', expired).execute()
}
