import { prepared } from '../../db/prepared.ts'
import type { Db, SuppressionTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { checkAddress } from '../../lib/address.ts'
import { requireAddress } from '../contacts/contact.ts'
import { unsubscribeAddress } from '../contacts/contacts.service.ts'
import { pageOf } from '../../db/paging.ts'

export type SuppressionReason = SuppressionTable['reason']

const toSuppression = (row: Omit<SuppressionTable, 'id'>) => ({
  email: row.email,
  reason: row.reason,
  detail: row.detail,
  createdAt: isoTime(row.created_at),
})

export const isSuppressed = async (db: Db, projectId: number, emailKey: string) =>
  (await selectSuppression(db, { projectId, emailKey })).length > 0

const selectSuppression = prepared((db, p: { projectId: number; emailKey: string }) =>
  db.selectFrom('suppressions').select('id').where('project_id', '=', p.projectId).where('email_key', '=', p.emailKey),
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

export async function unsuppress(db: Db, projectId: number, email: string) {
  const address = requireAddress(email)
  const result = await db.deleteFrom('suppressions').where('project_id', '=', projectId).where('email_key', '=', address.key).executeTakeFirst()
  if (result.numDeletedRows === 0n) throw notFound('Suppression')
  return { email: address.address, success: true, message: 'Removed from the suppression list' }
}

export async function listSuppressions(db: Db, projectId: number, page: number, limit: number) {
  const { rows, total } = await pageOf(db.selectFrom('suppressions').where('project_id', '=', projectId), page, limit)
  return { data: rows.map(toSuppression), count: total }
}

/**
 * The address bounced for good or complained: suppressed in its project, and its contact no longer
 * subscribed, with what follows that (webhooks, segment membership) as for any other unsubscription.
 */
export async function suppressRecipient(db: Db, projectId: number, email: string, reason: 'hard_bounce' | 'complaint', detail: string | null, now: number) {
  const address = checkAddress(email)
  if (!address.ok) return
  await suppress(db, projectId, email, reason, detail, now)
  await unsubscribeAddress(db, projectId, address.value.key, reason, now)
}
