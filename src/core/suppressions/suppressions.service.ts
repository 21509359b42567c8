import { sql } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import { likeIgnoringCase, likePattern } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db, SuppressionTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { checkAddress, requireAddress } from '../../lib/address.ts'
import { pageOf } from '../../db/paging.ts'
import { readSuppressionCsv } from './csv.ts'
import { erasedKey } from './erased.ts'

export type SuppressionReason = SuppressionTable['reason']

const toSuppression = (row: Omit<SuppressionTable, 'id'>) => ({
  email: row.email,
  reason: row.reason,
  detail: row.detail,
  createdAt: isoTime(row.created_at),
})

/**
 * Why the address is on the project's list (the reason recorded with a SUPPRESSED event), or
 * undefined when it is not: listed as itself, or by its hash once its contact was erased.
 */
export const suppressionReason = async (db: Db, projectId: number, emailKey: string): Promise<SuppressionReason | undefined> =>
  (await selectSuppression(db, { projectId, emailKey, erased: erasedKey(emailKey) }))[0]?.reason

const selectSuppression = prepared((db, p: { projectId: number; emailKey: string; erased: string }) =>
  db.selectFrom('suppressions').select('reason').where('project_id', '=', p.projectId).where('email_key', 'in', [p.emailKey, p.erased]).limit(1),
)

/** Puts an address on the list; an address already there keeps its first reason. */
export async function suppress(db: Db, projectId: number, email: string, reason: SuppressionReason, detail: string | null, now: number) {
  const address = requireAddress(email)
  const row = { project_id: projectId, email: address.address, email_key: address.key, reason, detail, created_at: now }
  await db
    .insertInto('suppressions')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'email_key']).doNothing())
    .execute()
  const stored = await db
    .selectFrom('suppressions')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('email_key', '=', address.key)
    .executeTakeFirstOrThrow()
  return toSuppression(stored)
}

/** Takes an address off the list, as itself or by its hash (an erased contact's address that may be mailed again). */
export async function unsuppress(db: Db, projectId: number, email: string) {
  const address = requireAddress(email)
  const result = await db.deleteFrom('suppressions').where('project_id', '=', projectId).where('email_key', 'in', [address.key, erasedKey(address.key)]).executeTakeFirst()
  if (result.numDeletedRows === 0n) throw notFound(`A suppression of ${address.address}`)
  return { email: address.address, success: true, message: 'Removed from the suppression list' }
}

/** A page of the project's suppressions, newest first; `search` keeps those whose address holds it. */
export async function listSuppressions(db: Db, projectId: number, page: number, limit: number, search?: string) {
  let query = db.selectFrom('suppressions').where('project_id', '=', projectId)
  if (search) query = query.where(likeIgnoringCase(dialectOf(db), sql.ref('email_key'), likePattern(search, 'contains')))
  const { rows, total } = await pageOf(query, page, limit)
  return { data: rows.map(toSuppression), count: total }
}

/** Rows a statement of an import inserts at most. */
const IMPORT_CHUNK = 1000
/** Unreadable lines an import's answer lists at most (it counts them all). */
const FAILURES_LISTED = 100

/**
 * Suppresses every address of a CSV file (csv.ts says what it may look like), as a manual
 * suppression each: an address already suppressed keeps its first reason. Lines that are not
 * addresses are reported with their line numbers, and the others are suppressed all the same.
 */
export async function importSuppressions(db: Db, projectId: number, file: Uint8Array, now: number) {
  const { listed, unreadable } = readSuppressionCsv(file)
  // An address listed twice is suppressed once, as its first line says.
  const firsts = new Map<string, (typeof listed)[number]>()
  for (const entry of listed) if (!firsts.has(entry.address.key)) firsts.set(entry.address.key, entry)
  const unique = [...firsts.values()]
  let added = 0
  for (let i = 0; i < unique.length; i += IMPORT_CHUNK) {
    const rows = unique.slice(i, i + IMPORT_CHUNK).map(({ address, detail }) => ({
      project_id: projectId,
      email: address.address,
      email_key: address.key,
      reason: 'manual',
      detail,
      created_at: now,
    }))
    const inserted = await insertMany(db, 'suppressions', ['project_id', 'email', 'email_key', 'reason', 'detail', 'created_at'], rows, {
      then: sql`ON CONFLICT (project_id, email_key) DO NOTHING RETURNING email_key`,
    })
    added += inserted.length
  }
  return {
    added,
    alreadySuppressed: unique.length - added,
    failedCount: unreadable.length,
    failed: unreadable.slice(0, FAILURES_LISTED),
  }
}
