import type { EmailStatus } from '../../db/schema.ts'
import { invalid } from '../../lib/errors.ts'

/** Every kind of event a webhook may receive. */
export const EVENT_TYPES = [
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
  'contact.created',
  'contact.updated',
  'contact.unsubscribed',
  'contact.deleted',
  'domain.verified',
  'domain.failed',
  'campaign.sent',
  'campaign.paused',
] as const

export type WebhookEventType = (typeof EVENT_TYPES)[number]

/** Subscribes to every type, those added later included. */
export const ALL_EVENTS = '*'

/** The webhook event an email event is; SCHEDULED and CANCELLED are none. */
export const EMAIL_EVENT_TYPES: Partial<Record<EmailStatus, WebhookEventType>> = {
  QUEUED: 'email.queued',
  SENT: 'email.sent',
  DELIVERED: 'email.delivered',
  DELIVERY_DELAYED: 'email.delivery_delayed',
  BOUNCED: 'email.bounced',
  COMPLAINED: 'email.complained',
  OPENED: 'email.opened',
  CLICKED: 'email.clicked',
  FAILED: 'email.failed',
  SUPPRESSED: 'email.suppressed',
}

const KNOWN = new Set<string>([...EVENT_TYPES, ALL_EVENTS])

/**
 * The event types a webhook asks for: at least one, each known (or `*`), each once, in the order
 * given. `*` alone stands for all: given beside others, they say nothing more.
 */
export function checkEvents(events: readonly string[], field = 'events'): string[] {
  if (events.length === 0) throw invalid(field, `give at least one event type, or "${ALL_EVENTS}" for all`)
  const unknown = events.find((event) => !KNOWN.has(event))
  if (unknown !== undefined) throw invalid(field, `${JSON.stringify(unknown)} is not an event type; the types are ${EVENT_TYPES.join(', ')}, or "${ALL_EVENTS}" for all`)
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)]
}
