import type { Db, WebhookDeliveryState } from '../../db/schema.ts'
import type { OutboundResult } from '../../lib/outbound/request.ts'
import { settleDelivery, type Claimed } from './webhook-deliveries.repository.ts'
import { afterAttempt, disabledReason, disablesWebhook } from './webhook-retries.ts'
import { countOutcome } from './webhooks.repository.ts'
import { disableWebhook } from './webhooks.service.ts'

export interface Recorded {
  state: WebhookDeliveryState
  attempts: number
  /** Why the webhook was disabled, when this failure disabled it. */
  disabled?: string
}

const MAX_ERROR_LENGTH = 1000
/** What the delivery log keeps of an endpoint's answer: enough to see what it said. */
const RESPONSE_KEPT = 2000

/**
 * Records a call's outcome in one transaction: the delivery is delivered, due again by the
 * schedule, or failed; the webhook's failures in a row are cleared or counted, and the failure
 * that reaches the limit disables it. A delivery that would be tried again while its webhook is
 * disabled waits instead.
 */
export async function recordAttempt(db: Db, delivery: Claimed, result: OutboundResult, now: number): Promise<Recorded> {
  const attempts = delivery.attempts + 1
  const outcome = afterAttempt(result, attempts, now)
  const webhook = await countOutcome(db, delivery.webhook_id, result.ok)
  const state = outcome.state === 'pending' && webhook?.enabled === 0 ? 'paused' : outcome.state
  await settleDelivery(
    db,
    delivery,
    {
      state,
      attempts,
      next_attempt_at: state === 'pending' && outcome.state === 'pending' ? outcome.nextAttemptAt : null,
      last_status: result.status,
      last_error: result.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
      last_duration_ms: result.durationMs,
      // NUL is no text PostgreSQL keeps: a binary answer is shown with replacement characters.
      last_response_body: result.status === null ? null : result.body.slice(0, RESPONSE_KEPT).replaceAll('\u0000', '\uFFFD'),
    },
    now,
  )
  if (result.ok || webhook?.enabled !== 1 || !disablesWebhook(webhook.consecutive_failures)) return { state, attempts }
  const reason = disabledReason(webhook.consecutive_failures, result.error)
  await disableWebhook(db, delivery.webhook_id, reason, now)
  return { state: state === 'pending' ? 'paused' : state, attempts, disabled: reason }
}
