import { sql, type Insertable, type Selectable } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db, WebhookDeliveryState, WebhookDeliveryTable } from '../../db/schema.ts'
import { inList } from '../segments/segments.repository.ts'
import type { DueWork } from './pick.ts'
import { pageOf } from '../../db/paging.ts'

export type DeliveryRow = Selectable<WebhookDeliveryTable>

const COLUMNS = ['id', 'webhook_id', 'event_id', 'type', 'payload', 'state', 'next_attempt_at', 'created_at', 'updated_at'] as const

export const insertDeliveries = (db: Db, rows: ReadonlyArray<Insertable<WebhookDeliveryTable>>) => insertMany(db, 'webhook_deliveries', COLUMNS, rows)

/**
 * For every enabled webhook, up to `perWebhook` of its deliveries that are due, soonest first: one
 * index probe per webhook however many wait, so a long queue for one endpoint hides no other's.
 * Dialect-specific (a correlated subquery gathered with json_group_array); PostgreSQL would use a
 * LATERAL join.
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
      sql<string>`(SELECT json_group_array(json_array(x.id, x.next_attempt_at)) FROM (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= ${p.now}
        ORDER BY d.next_attempt_at LIMIT ${p.perWebhook}) x)`.as('due'),
    )
    .where('w.enabled', '=', 1),
)

export type Claimed = Pick<DeliveryRow, 'id' | 'webhook_id' | 'event_id' | 'payload' | 'attempts'>

/**
 * Takes these deliveries for a call, those still due: their next attempt moves to `until`, so no
 * other round takes them meanwhile and a crash leaves them due again then.
 */
export const leaseDeliveries = (db: Db, ids: readonly string[], now: number, until: number): Promise<Claimed[]> =>
  db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: until, updated_at: now })
    .where('id', 'in', inList(db, ids))
    .where(sql<boolean>`state = 'pending'`)
    .where('next_attempt_at', '<=', now)
    .returning(['id', 'webhook_id', 'event_id', 'payload', 'attempts'])
    .execute()

export interface Settlement {
  state: WebhookDeliveryState
  attempts: number
  next_attempt_at: number | null
  last_status: number | null
  last_error: string | null
  last_duration_ms: number
}

/** Records an attempt's outcome; nothing when the delivery is already finished (or gone). */
export const settleDelivery = (db: Db, id: string, settlement: Settlement, now: number) => update(db, { ...settlement, id, now })
const update = prepared((db, p: Settlement & { id: string; now: number }) =>
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
      updated_at: p.now,
    })
    .where('id', '=', p.id)
    .where(sql<boolean>`state IN ('pending', 'paused')`),
)

// States written as literals, as the partial indexes are, so SQLite uses them.
/** A disabled webhook's deliveries wait, and are not taken. */
export const pauseDeliveries = (db: Db, webhookId: string, now: number) =>
  db.updateTable('webhook_deliveries').set({ state: 'paused', next_attempt_at: null, updated_at: now }).where('webhook_id', '=', webhookId).where(sql<boolean>`state = 'pending'`).execute()

/** An enabled webhook's waiting deliveries are due at once. */
export const resumeDeliveries = (db: Db, webhookId: string, now: number) =>
  db.updateTable('webhook_deliveries').set({ state: 'pending', next_attempt_at: now, updated_at: now }).where('webhook_id', '=', webhookId).where(sql<boolean>`state = 'paused'`).execute()

export const pauseDelivery = (db: Db, id: string, now: number) =>
  db.updateTable('webhook_deliveries').set({ state: 'paused', next_attempt_at: null, updated_at: now }).where('id', '=', id).where(sql<boolean>`state = 'pending'`).execute()

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
