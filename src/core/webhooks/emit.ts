import type { Insertable } from 'kysely'
import type { Db, WebhookDeliveryTable } from '../../db/schema.ts'
import { rowsWait } from '../../db/writer.ts'
import { newId } from '../../lib/ids.ts'
import { insertDeliveries } from './webhook-deliveries.repository.ts'
import type { WebhookEventType } from './event-types.ts'
import { payloadOf, type EventData } from './payload.ts'
import { subscribedWebhooks } from './webhooks.repository.ts'

/**
 * Records `type` events for every enabled webhook of the project that takes the type, in the
 * caller's transaction: a delivery per event per webhook, all due now. `events` builds the events'
 * data and is called only when some webhook takes them, so a project without webhooks pays one
 * indexed lookup. Answers how many deliveries were written.
 */
export async function emitWebhookEvents(db: Db, projectId: number, type: WebhookEventType, events: () => EventData[] | Promise<EventData[]>, now: number): Promise<number> {
  const webhooks = await subscribedWebhooks(db, projectId, type)
  return webhooks.length === 0 ? 0 : deliverEvents(db, webhooks, type, await events(), now)
}

/** One event: `data`, or what building it answers (undefined: no event after all). */
export async function emitWebhookEvent(db: Db, projectId: number, type: WebhookEventType, data: EventData | (() => EventData | undefined | Promise<EventData | undefined>), now: number): Promise<number> {
  const webhooks = await subscribedWebhooks(db, projectId, type)
  if (webhooks.length === 0) return 0
  const built = typeof data === 'function' ? await data() : data
  return built === undefined ? 0 : deliverEvents(db, webhooks, type, [built], now)
}

/** Writes a delivery of each event to each of `webhookIds`; each event has one id for all of them. */
export async function deliverEvents(db: Db, webhookIds: readonly string[], type: WebhookEventType, events: readonly EventData[], now: number): Promise<number> {
  const rows: Array<Insertable<WebhookDeliveryTable>> = []
  for (const data of events) {
    const eventId = newId()
    const payload = payloadOf(eventId, type, now, data)
    for (const webhookId of webhookIds) {
      rows.push({ id: newId(), webhook_id: webhookId, event_id: eventId, type, payload, state: 'pending', next_attempt_at: now, created_at: now, updated_at: now })
    }
  }
  if (rows.length === 0) return 0
  await insertDeliveries(db, rows)
  // The dispatcher looks once this transaction committed, not at its next poll.
  rowsWait(db, 'webhook_deliveries')
  return rows.length
}
