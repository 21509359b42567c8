import type { OutboundResult } from '../../lib/outbound/request.ts'

const MINUTE = 60_000

/**
 * How long after a failed call the next is made. Six attempts over about an hour, counted from
 * the first; a delivery whose last attempt fails has failed.
 */
export const RETRY_DELAYS_MS = [
  MINUTE, //      2nd attempt:  1 min after the first
  5 * MINUTE, //  3rd:          6 min
  10 * MINUTE, // 4th:         16 min
  20 * MINUTE, // 5th:         36 min
  30 * MINUTE, // 6th:         66 min
] as const

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** Failed calls in a row, over all of a webhook's deliveries, after which it is disabled. */
export const DISABLE_AFTER_FAILURES = 30

export type AttemptOutcome = { state: 'delivered' } | { state: 'failed' } | { state: 'pending'; nextAttemptAt: number }

/**
 * Where a delivery goes after its `attempts`-th call ended with `result` at `now`: delivered on a
 * 2xx; otherwise tried again by the schedule, unless the attempts are spent or the target was
 * refused (a private address: calling again cannot help).
 */
export function afterAttempt(result: Pick<OutboundResult, 'ok' | 'refused'>, attempts: number, now: number): AttemptOutcome {
  if (result.ok) return { state: 'delivered' }
  if (result.refused || attempts >= MAX_ATTEMPTS) return { state: 'failed' }
  return { state: 'pending', nextAttemptAt: now + RETRY_DELAYS_MS[Math.max(attempts, 1) - 1]! }
}

/** Whether this failure, the `failures`-th in a row, disables the webhook. */
export const disablesWebhook = (failures: number): boolean => failures >= DISABLE_AFTER_FAILURES

/** What a disabled webhook says about why, shown in the API. */
export const disabledReason = (failures: number, lastError: string | undefined): string =>
  `Disabled after ${failures} failed calls in a row; the last: ${lastError ?? 'no answer'}. Enable it again once the endpoint answers.`
