import { sql, type Insertable, type Selectable } from 'kysely'
import { likeIgnoringCase, likePattern } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import { jsonArrayOfRows } from '../../db/aggregate.ts'
import { claim, unclaim, UNCLAIMED, type Claimant } from '../../db/claims.ts'
import { insertMany } from '../../db/bulk.ts'
import { insertionOrder } from '../../db/order.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db, WebhookDeliveryState, WebhookDeliveryTable } from '../../db/schema.ts'
import type { DueWork } from './pick.ts'
import { pageOf } from '../../db/paging.ts'

export type DeliveryRow = Selectable<WebhookDeliveryTable>

const COLUMNS = ['id', 'webhook_id', 'event_id', 'type', 'payload', 'state', 'next_attempt_at', 'created_at', 'updated_at'] as const

export const insertDeliveries = (db: Db, rows: ReadonlyArray<Insertable<WebhookDeliveryTable>>) => insertMany(db, 'webhook_deliveries', COLUMNS, rows)

/**
 * For every enabled webhook, up to `perWebhook` of its deliveries that are due, soonest first and
 * in the order they were made: one index probe per webhook however many wait (a correlated
 * subquery gathered into a JSON array), so a long queue for one endpoint hides no other's.
 */
export async function dueWork(db: Db, now: number, perWebhook: number): Promise<DueWork[]> {
  const rows = await selectDue(db, { now, perWebhook })
  return rows
    .map((row) => ({ webhookId: row.id, failures: row.consecutive_failures, due: (JSON.parse(row.due) as Array<[string, number]>).map(([id, at]) => ({ id, at })) }))
    .filter((work) => work.due.length > 0)
}
const selectDue = prepared((db, p: { now: number; perWebhook: number }) =>
  db
    .selectFrom('webhooks as w')
    .select(['w.id', 'w.consecutive_failures'])
    .select(
      sql<string>`(SELECT ${jsonArrayOfRows(db, [sql.ref('x.id'), sql.ref('x.next_attempt_at')])} FROM (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= ${p.now} AND d.claimed_by IS NULL
        ORDER BY d.next_attempt_at, ${insertionOrder(db, 'd')} LIMIT ${p.perWebhook}) x)`.as('due'),
    )
    .where('w.enabled', '=', 1),
)

export type Claimed = Pick<DeliveryRow, 'id' | 'webhook_id' | 'event_id' | 'type' | 'payload' | 'attempts' | 'claimed_by'>

/** Claims these deliveries for a call, those still due (src/db/claims.ts). */
export const claimDeliveries = (db: Db, claimant: Claimant, ids: readonly string[], now: number): Promise<Claimed[]> =>
  claim(db, 'webhook_deliveries', claimant, now, {
    picked: ids,
    still: (eb) => eb.and([sql<boolean>`state = 'pending'`, eb('next_attempt_at', '<=', now)]),
    set: { updated_at: now },
  })
    .returning(['id', 'webhook_id', 'event_id', 'type', 'payload', 'attempts', 'claimed_by'])
    .execute()

export interface Settlement {
  state: WebhookDeliveryState
  attempts: number
  next_attempt_at: number | null
  last_status: number | null
  last_error: string | null
  last_duration_ms: number
  last_response_body: string | null
}

/** Records an attempt's outcome and ends its claim; nothing when the delivery is finished, gone, or another process's now. */
export const settleDelivery = (db: Db, delivery: Pick<Claimed, 'id' | 'claimed_by'>, settlement: Settlement, now: number) =>
  update(db, { ...settlement, id: delivery.id, owner: delivery.claimed_by!, now })
const update = prepared((db, p: Settlement & { id: string; owner: string; now: number }) =>
  db
    .updateTable('webhook_deliveries')
    .set({
      state: p.state,
      attempts: p.attempts,
      next_attempt_at: p.next_attempt_at,
      last_attempt_at: p.now,
      last_status: p.last_status,
      last_error: p.last_error,
      last_duration_ms: p.last_duration_ms,
      last_response_body: p.last_response_body,
      updated_at: p.now,
      ...UNCLAIMED,
    })
    .where('id', '=', p.id)
    .where('claimed_by', '=', p.owner)
    .where(sql<boolean>`state IN ('pending', 'paused')`),
)

// States written as literals, as the partial indexes are, so SQLite uses them.
/** A disabled webhook's deliveries wait, and are not taken. */
export const pauseDeliveries = (db: Db, webhookId: string, now: number) =>
  db.updateTable('webhook_deliveries').set({ state: 'paused', next_attempt_at: null, updated_at: now }).where('webhook_id', '=', webhookId).where(sql<boolean>`state = 'pending'`).execute()

/** An enabled webhook's waiting deliveries are due at once. */
export const resumeDeliveries = (db: Db, webhookId: string, now: number) =>
  db.updateTable('webhook_deliveries').set({ state: 'pending', next_attempt_at: now, updated_at: now }).where('webhook_id', '=', webhookId).where(sql<boolean>`state = 'paused'`).execute()

/**
 * A finished delivery (delivered or failed) made due again at once, its attempts counted afresh:
 * the same payload and event id, so a receiver that already has it can tell. Answers the row, or
 * nothing when it was not finished.
 */
export const replayFinished = (db: Db, webhookId: string, id: string, now: number) =>
  db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', attempts: 0, next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .where('webhook_id', '=', webhookId)
    .where(sql<boolean>`state IN ('delivered', 'failed')`)
    .returningAll()
    .executeTakeFirst()

/** One of a webhook's deliveries. */
export const findDelivery = (db: Db, webhookId: string, id: string) =>
  db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('webhook_id', '=', webhookId).executeTakeFirst()

/** A claimed delivery whose webhook turned out to be disabled: it waits with the others, unclaimed. */
export const pauseDelivery = (db: Db, delivery: Pick<Claimed, 'id' | 'claimed_by'>, now: number) =>
  unclaim(db, 'webhook_deliveries', delivery.claimed_by!, [delivery.id], { state: 'paused', next_attempt_at: null, updated_at: now })

/** Deletes up to `limit` deliveries that finished before `before`; answers how many. */
export async function deleteFinished(db: Db, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where(sql<boolean>`state IN ('delivered', 'failed')`).where('updated_at', '<', before).limit(limit))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** One page of a webhook's deliveries, newest first, with the total. */
export const pageDeliveries = (db: Db, webhookId: string, page: number, pageSize: number) =>
  pageOf(db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId), page, pageSize)

/**
 * Deletes the project's webhook deliveries whose payload holds any of `needles` (ignoring ASCII
 * case), whatever their state: an erased contact's id and address. Answers how many.
 */
export async function deleteDeliveriesNaming(db: Db, projectId: number, needles: readonly string[]): Promise<number> {
  const dialect = dialectOf(db)
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('webhook_id', 'in', db.selectFrom('webhooks').select('id').where('project_id', '=', projectId))
    .where((eb) => eb.or(needles.map((needle) => likeIgnoringCase(dialect, sql.ref('payload'), likePattern(needle, 'contains')))))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
