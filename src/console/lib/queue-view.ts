import type { QueueCounts, QueuedDelivery, QueueState } from '../api/queue.api.ts'
import { QUEUE_STATES } from '../api/queue.api.ts'

/** What the Queue page decides without the DOM: states in words, counts in order, which actions a delivery allows. */

export const STATE_WORDS: Record<QueueState, { label: string; hint: string }> = {
  scheduled: { label: 'Scheduled', hint: 'to be sent at a time given' },
  queued: { label: 'Queued', hint: 'due now, to be sent at the next round' },
  sending: { label: 'Sending', hint: 'being sent now' },
  deferred: { label: 'Deferred', hint: 'refused for now, tried again later' },
  paused: { label: 'Paused', hint: 'held while its project is disabled or its campaign paused' },
}

/** Every pending state with its count, none left out, in the order a delivery goes through them. */
export function stateCounts(counts: QueueCounts): { state: QueueState; count: number }[] {
  return QUEUE_STATES.map((state) => ({ state, count: counts.byState[state] ?? 0 }))
}

export const totalPending = (counts: QueueCounts) => stateCounts(counts).reduce((sum, row) => sum + row.count, 0)

/** The roles that may retry and cancel (the "sending" writes of src/core/accounts/roles.ts). */
export const mayChangeQueue = (role: string) => role === 'owner' || role === 'admin' || role === 'member'

/** Only a deferred delivery is tried again now (the list shows none that failed). */
export const mayRetry = (delivery: Pick<QueuedDelivery, 'state'>) => delivery.state === 'deferred'

/** What has not left yet can be cancelled: not one being sent, nor one held by a pause. */
export const mayCancel = (delivery: Pick<QueuedDelivery, 'state'>) => delivery.state === 'scheduled' || delivery.state === 'queued' || delivery.state === 'deferred'

/** A domain as typed into the filter: trimmed, lower case, undefined when empty. */
export function domainFilter(typed: string): string | undefined {
  const domain = typed.trim().toLowerCase().replace(/\.$/, '')
  return domain === '' ? undefined : domain
}

/** A state from the filter's select, undefined for "every pending state". */
export const stateFilter = (value: string): QueueState | undefined => (QUEUE_STATES as readonly string[]).includes(value) ? (value as QueueState) : undefined
