import { isoTime } from '../../lib/clock.ts'
import type { DeliveryRow } from './webhook-deliveries.repository.ts'
import type { WebhookRow } from './webhooks.repository.ts'

const timeOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms))

/** A webhook as the API shows it. Its signing secret is never part of it. */
export const toWebhook = (row: WebhookRow) => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  enabled: row.enabled === 1,
  disabledReason: row.disabled_reason,
  consecutiveFailures: row.consecutive_failures,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

export type Webhook = ReturnType<typeof toWebhook>

/** A delivery as the API shows it, with the payload that is (or was) sent. */
export const toDelivery = (row: DeliveryRow) => ({
  id: row.id,
  eventId: row.event_id,
  type: row.type,
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: row.state === 'pending' ? timeOrNull(row.next_attempt_at) : null,
  lastAttemptAt: timeOrNull(row.last_attempt_at),
  lastStatus: row.last_status,
  lastError: row.last_error,
  lastDurationMs: row.last_duration_ms,
  lastResponseBody: row.last_response_body,
  payload: JSON.parse(row.payload) as unknown,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})
