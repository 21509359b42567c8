import { sql } from 'kysely'
import { cancelWaitingDelivery, requeueDeliveries } from '../core/emails/deliveries.repository.ts'
import { addEmailEvent } from '../core/emails/email-events.ts'
import type { Db, DeliveryState } from '../db/schema.ts'
import { AppError, notFound } from '../lib/errors.ts'

/** States a delivery can still leave: the queue proper. */
export const PENDING_STATES: DeliveryState[] = ['scheduled', 'queued', 'sending', 'deferred', 'paused']

/** Counts by state, and by destination domain for what is still pending. */
export async function queueStats(db: Db) {
  const byState = await db.selectFrom('deliveries').select(['state', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('state').execute()
  const byDomain = await db
    .selectFrom('deliveries')
    .select(['recipient_domain as domain', (eb) => eb.fn.countAll<number>().as('count')])
    .where('state', 'in', PENDING_STATES)
    .groupBy('recipient_domain')
    .orderBy(sql`count(*)`, 'desc')
    .limit(50)
    .execute()
  return {
    byState: Object.fromEntries(byState.map((r) => [r.state, Number(r.count)])),
    byDomain: byDomain.map((r) => ({ domain: r.domain, count: Number(r.count) })),
  }
}

export async function listQueue(db: Db, state: DeliveryState | undefined, limit: number) {
  let query = db.selectFrom('deliveries').selectAll().orderBy('next_attempt_at').limit(limit)
  query = state ? query.where('state', '=', state) : query.where('state', 'in', PENDING_STATES)
  return query.execute()
}

/** Sends a deferred or failed delivery (or every deferred one) at the next round. */
export async function retryDeliveries(db: Db, target: number | 'all-deferred', now: number) {
  if (target !== 'all-deferred') await refusePruned(db, target)
  const result = await requeueDeliveries(db, target, now)
  if (target !== 'all-deferred' && result.numUpdatedRows === 0n) await explainNoChange(db, target, 'retried', ['deferred', 'failed'])
  return Number(result.numUpdatedRows)
}

/**
 * A settled delivery's email may have lost its body to retention (retentionDays): it has nothing
 * left to send, unless it is a campaign's, whose message is built again from the campaign.
 */
async function refusePruned(db: Db, id: number): Promise<void> {
  const row = await db
    .selectFrom('deliveries as d')
    .leftJoin('email_contents as c', 'c.email_id', 'd.email_id')
    .leftJoin('campaign_recipients as r', 'r.email_id', 'd.email_id')
    .select(['c.email_id as content', 'r.campaign_id as campaign'])
    .where('d.id', '=', id)
    .where('d.state', '=', 'failed')
    .executeTakeFirst()
  if (row && row.content === null && row.campaign === null) {
    throw new AppError(409, 'CONFLICT', `Delivery ${id} cannot be retried: its email's body was deleted by retention (MAILSTEAD_RETENTION_DAYS)`)
  }
}

/** Takes a delivery that has not left yet out of the queue. */
export async function cancelDelivery(db: Db, id: number, now: number) {
  const result = await cancelWaitingDelivery(db, id, now)
  if (!result) return explainNoChange(db, id, 'cancelled', ['scheduled', 'queued', 'deferred'])
  await addEmailEvent(db, result.email_id, 'CANCELLED', { recipient: result.recipient }, now)
}

async function explainNoChange(db: Db, id: number, verb: string, allowed: DeliveryState[]): Promise<never> {
  const row = await db.selectFrom('deliveries').select('state').where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`Delivery ${id}`)
  throw new AppError(409, 'CONFLICT', `Delivery ${id} is ${row.state}; only ${allowed.join(', ')} deliveries can be ${verb}`)
}
