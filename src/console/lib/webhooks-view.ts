import type { WebhookDelivery } from '../api/webhooks.api.ts'

/**
 * What the Webhooks page decides without the DOM: the event types to offer, how a webhook's
 * events and a delivery's outcome read, what may be replayed and when the log reads itself again.
 */

/** Subscribes to every type, those added later included (the API's "*"). */
export const ALL_EVENTS = '*'

/** The event types the API knows (src/core/webhooks/event-types.ts; a browser test keeps the two equal), grouped as offered. */
export const EVENT_GROUPS: { name: string; types: string[] }[] = [
  {
    name: 'Email',
    types: [
      'email.queued',
      'email.sent',
      'email.delivered',
      'email.delivery_delayed',
      'email.bounced',
      'email.complained',
      'email.opened',
      'email.clicked',
      'email.failed',
      'email.suppressed',
    ],
  },
  { name: 'Contact', types: ['contact.created', 'contact.updated', 'contact.unsubscribed', 'contact.deleted'] },
  { name: 'Domain', types: ['domain.verified', 'domain.failed'] },
  { name: 'Campaign', types: ['campaign.sent', 'campaign.paused'] },
]

export const EVENT_TYPES = EVENT_GROUPS.flatMap((group) => group.types)

/** The roles that may change webhooks (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
export const mayManageWebhooks = (role: string) => role === 'owner' || role === 'admin'

/**
 * The events to send for what is ticked: "*" alone when "all" is, else the types in the order
 * offered, each once.
 */
export function chosenEvents(ticked: readonly string[]): string[] {
  if (ticked.includes(ALL_EVENTS)) return [ALL_EVENTS]
  const known = EVENT_TYPES.filter((type) => ticked.includes(type))
  // A type this console does not know yet (a newer server) is kept, not dropped on saving.
  const unknown = ticked.filter((type) => !EVENT_TYPES.includes(type))
  return [...known, ...new Set(unknown)]
}

/** A webhook's events in words: "All events", "email.sent", or "email.sent and 2 more". */
export function eventsSummary(events: readonly string[]): string {
  if (events.includes(ALL_EVENTS)) return 'All events'
  if (events.length === 0) return 'None'
  if (events.length === 1) return events[0]!
  return `${events[0]} and ${events.length - 1} more`
}

export type Tone = 'ok' | 'bad' | 'wait' | 'off'

/** What became of a delivery, in a word, with the tone of its badge. */
export function deliveryState(delivery: Pick<WebhookDelivery, 'state' | 'attempts'>): { label: string; tone: Tone } {
  switch (delivery.state) {
    case 'delivered':
      return { label: 'Delivered', tone: 'ok' }
    case 'failed':
      return { label: 'Failed', tone: 'bad' }
    case 'paused':
      return { label: 'Held', tone: 'off' }
    default:
      return delivery.attempts === 0 ? { label: 'Waiting', tone: 'wait' } : { label: 'Retrying', tone: 'wait' }
  }
}

/** The endpoint's last answer in short: "HTTP 200 in 35 ms", the error, or that it was not called yet. */
export function responseSummary(delivery: Pick<WebhookDelivery, 'lastStatus' | 'lastError' | 'lastDurationMs' | 'lastAttemptAt'>): string {
  if (delivery.lastAttemptAt === null) return 'Not called yet'
  const took = delivery.lastDurationMs === null ? '' : ` in ${delivery.lastDurationMs} ms`
  if (delivery.lastStatus !== null) return `HTTP ${delivery.lastStatus}${took}`
  return `No answer${took}${delivery.lastError ? `: ${delivery.lastError}` : ''}`
}

/** Only a finished delivery of an enabled webhook is replayed; one still waiting is called anyway. */
export const mayReplay = (delivery: Pick<WebhookDelivery, 'state'>, webhookEnabled: boolean) =>
  webhookEnabled && (delivery.state === 'delivered' || delivery.state === 'failed')

/** How soon after a due call the log looks again for its outcome. */
const SOON_MS = 5_000

/**
 * Whether the log should read itself again shortly: some delivery is due now or within a few
 * seconds (a new event, a replay, an early retry), so its outcome is about to be known.
 */
export function awaitingCalls(deliveries: readonly Pick<WebhookDelivery, 'state' | 'nextAttemptAt'>[], now: number): boolean {
  return deliveries.some((d) => d.state === 'pending' && (d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) <= now + SOON_MS))
}

/** A payload as sent, indented for reading. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value)
}

/** An answer body, indented when it is JSON, else as it came. */
export function prettyBody(body: string): string {
  const trimmed = body.trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return body
  try {
    return prettyJson(JSON.parse(trimmed))
  } catch {
    return body
  }
}

/** The types a webhook can be sent a test of: those it takes, every known one when it takes all. */
export function testEventTypes(events: readonly string[]): string[] {
  return events.includes(ALL_EVENTS) ? [...EVENT_TYPES] : events.filter((type) => type !== ALL_EVENTS)
}

/** A test call's outcome in a sentence: "The endpoint answered HTTP 200 in 35 ms." */
export function testCallSummary(call: { ok: boolean; response: { status: number } | null; durationMs: number; error: string | null }): string {
  const took = `${call.durationMs.toLocaleString()} ms`
  // Its error for an answer only repeats the status: the sentence says it is no success instead.
  if (call.response) return `The endpoint answered HTTP ${call.response.status} in ${took}${call.ok ? '.' : ', which is not a success.'}`
  return `No answer after ${took}: ${call.error ?? 'the call failed'}.`
}
