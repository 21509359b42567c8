import { sql, type ExpressionBuilder } from 'kysely'
import type { DB, Db } from '../../db/schema.ts'
import { PENDING_STATES } from './admin.ts'
import { campaignDeliveries, type CampaignEmails } from './queue.repository.ts'

// The deliveries table as other modules may read it: query fragments that analytics, campaigns
// and emails narrow or join with their own tables, and the lookups they need, so that the table is
// named in its own module alone (src/db/owners.ts).

/**
 * The deliveries table as a subquery to read or join under an alias:
 * `.selectFrom(deliveryRows(db).as('deliveries'))`. Both databases' planners read it as the table itself.
 */
export const deliveryRows = (db: Db) => db.selectFrom('deliveries').selectAll()

/** The delivery with this id. */
export const findDelivery = (db: Db, id: number) => db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst()

/** The deliveries with these ids that are still there: who they went to, for which email and project. */
export const deliveriesByIds = (db: Db, ids: readonly number[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('deliveries').select(['id', 'project_id', 'email_id', 'recipient']).where('id', 'in', [...ids]).execute()

/** The email's deliveries, in the order they were queued. */
export const deliveriesOf = (db: Db, emailId: string) => db.selectFrom('deliveries').selectAll().where('email_id', '=', emailId).orderBy('id').execute()

/** When one of the email's deliveries was queued and when it expires (all of an email's are queued together). */
export const deliveryTimesOf = (db: Db, emailId: string) =>
  db.selectFrom('deliveries').select(['created_at', 'expires_at']).where('email_id', '=', emailId).executeTakeFirst()

/**
 * Whether a delivery of the email (`emailId`, a column of the outer query such as 'emails.id') was
 * queued by a sandbox project, as an EXISTS.
 */
export const hasSandboxDelivery = (eb: ExpressionBuilder<any, any>, emailId: string) =>
  (eb as ExpressionBuilder<DB, never>).exists(
    (eb as ExpressionBuilder<DB, never>)
      .selectFrom('deliveries')
      .select('deliveries.id')
      .where('deliveries.email_id', '=', sql.ref<string>(emailId))
      .where('deliveries.sandbox', '=', 1),
  )

/**
 * Whether a delivery of the email (`emailId`, a column of the outer query such as 'c.email_id')
 * is still pending (PENDING_STATES), as raw SQL: such an email still needs its message.
 */
export const hasPendingDelivery = (emailId: string) =>
  sql<boolean>`EXISTS (SELECT 1 FROM deliveries d WHERE d.email_id = ${sql.ref(emailId)} AND d.state IN (${sql.join(PENDING_STATES)}))`

/** Whether any of a campaign's deliveries (`ofCampaign`, as its module writes it) is in `from`. */
export async function hasCampaignDeliveries(db: Db, ofCampaign: CampaignEmails, from: 'queued' | 'paused'): Promise<boolean> {
  const row = await db.selectFrom('deliveries').select('id').where(campaignDeliveries(ofCampaign, from)).limit(1).executeTakeFirst()
  return row !== undefined
}
