import type { Db, DeliveryState } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { AppError, invalid, notFound } from '../../lib/errors.ts'
import { deliveryCancelled } from '../reactions.ts'
import { cancelWaitingDelivery, countQueue, findDeliveryIn, listDeliveries, requeueDeliveries, type DeliveryRow, type QueueScope } from './queue.repository.ts'

/*
 * The queue as operators see it: counted, listed, a delivery retried or cancelled. The CLI acts on
 * every project's deliveries; the HTTP API on its caller's project only (`scope`), where another
 * project's delivery is one that does not exist.
 */

export type { QueueScope }

/** States a delivery can still leave: the queue proper. */
export const PENDING_STATES: DeliveryState[] = ['scheduled', 'queued', 'sending', 'deferred', 'paused']
/** Destination domains a count names, most pending first. */
const DOMAINS_COUNTED = 50

/**
 * Counts by state, and by destination domain for what is still pending. `pendingOnly` counts the
 * pending states alone: what a project's queue page needs, without counting its whole history.
 */
export async function queueStats(db: Db, scope: QueueScope = {}, pendingOnly = false) {
  const { byState, byDomain } = await countQueue(db, scope, PENDING_STATES, pendingOnly ? PENDING_STATES : undefined, DOMAINS_COUNTED)
  return {
    byState: Object.fromEntries(byState.map((r) => [r.state, Number(r.count)])) as Partial<Record<DeliveryState, number>>,
    byDomain: byDomain.map((r) => ({ domain: r.domain, count: Number(r.count) })),
  }
}

/** Pending deliveries (or those in `state`), soonest first; `after` is the last of the page before. */
export const listQueue = (db: Db, options: { state?: DeliveryState; limit: number; after?: { at: number; id: number } }, scope: QueueScope = {}) =>
  listDeliveries(db, options.state ? [options.state] : PENDING_STATES, scope, options.limit, options.after)

/** A delivery of the queue as the API and the CLI show it: camelCase, times in ISO 8601. */
export const toQueued = (row: DeliveryRow) => ({
  id: row.id,
  emailId: row.email_id,
  recipient: row.recipient,
  domain: row.recipient_domain,
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: isoTime(row.next_attempt_at),
  lastResponse: row.last_response,
  createdAt: isoTime(row.created_at),
})

/**
 * Whether an email's message is gone for good, so that its failed delivery has nothing left to
 * send: messageLost of src/core/campaigns, which knows the emails' bodies and the campaigns' (the
 * queue sits below both), given by the caller.
 */
export type MessageLost = (db: Db, emailId: string) => Promise<boolean>

/** Sends a deferred or failed delivery (or every deferred one in scope) at the next round. */
export async function retryDeliveries(db: Db, target: number | 'all-deferred', now: number, messageLost: MessageLost, scope: QueueScope = {}) {
  if (target !== 'all-deferred') {
    const delivery = await findDeliveryIn(db, target, scope)
    if (!delivery) throw notFound(`Delivery ${target}`)
    await refusePruned(db, delivery, messageLost)
  }
  const result = await requeueDeliveries(db, target, now, scope)
  if (target !== 'all-deferred' && result.numUpdatedRows === 0n) await explainNoChange(db, target, scope, 'retried', ['deferred', 'failed'])
  return Number(result.numUpdatedRows)
}

/**
 * A failed delivery's email may have lost its body to retention (retentionDays): it has nothing
 * left to send, unless it is a campaign's, whose message is built again from the campaign.
 */
async function refusePruned(db: Db, delivery: { id: number; state: DeliveryState; email_id: string }, messageLost: MessageLost): Promise<void> {
  if (delivery.state === 'failed' && (await messageLost(db, delivery.email_id))) {
    throw new AppError(409, 'CONFLICT', `Delivery ${delivery.id} cannot be retried: its email's body was deleted by retention (MAILSTEAD_RETENTION_DAYS)`)
  }
}

/** Takes a delivery that has not left yet out of the queue. */
export async function cancelDelivery(db: Db, id: number, now: number, scope: QueueScope = {}) {
  const result = await cancelWaitingDelivery(db, id, now, scope)
  if (!result) return explainNoChange(db, id, scope, 'cancelled', ['scheduled', 'queued', 'deferred'])
  await deliveryCancelled(db, result.email_id, result.recipient, now)
}

async function explainNoChange(db: Db, id: number, scope: QueueScope, verb: string, allowed: DeliveryState[]): Promise<never> {
  const row = await findDeliveryIn(db, id, scope)
  if (!row) throw notFound(`Delivery ${id}`)
  throw new AppError(409, 'CONFLICT', `Delivery ${id} is ${row.state}; only ${allowed.join(', ')} deliveries can be ${verb}`)
}

/** A page's cursor is opaque to clients: the next attempt and id of its last delivery, wrapped. */
export const encodeQueueCursor = (last: { next_attempt_at: number; id: number }) => Buffer.from(`q1:${last.next_attempt_at}:${last.id}`).toString('base64url')

export function decodeQueueCursor(cursor: string): { at: number; id: number } {
  const text = /^[A-Za-z0-9_-]{1,60}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : ''
  const match = /^q1:(\d{1,16}):(\d{1,16})$/.exec(text)
  if (!match) throw invalid('cursor', 'is not a cursor returned by a previous page')
  return { at: Number(match[1]), id: Number(match[2]) }
}
