import type { Selectable } from 'kysely'
import type { CampaignTable, ContactRow, DomainTable, EmailStatus, EmailTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { toContact, type UnsubscribeSource } from '../contacts/contact.ts'
import { subdomainOf } from '../domains/domain-name.ts'
import type { WebhookEventType } from './event-types.ts'
import { useSendEmailFields } from './usesend-fields.ts'

export type EventData = Record<string, unknown>

/** The body of a call: the same for every webhook that receives the event, and on every attempt. */
export const payloadOf = (id: string, type: WebhookEventType, at: number, data: EventData): string =>
  JSON.stringify({ id, type, createdAt: isoTime(at), data })

/** What an email event says about its email; `campaign_id` is null for mail that is no campaign's. */
export type EmailFacts = Pick<EmailTable, 'id' | 'from_address' | 'recipients' | 'subject' | 'contact_id'> & { campaign_id: string | null }

/**
 * An email event's data: the email (who it is from and to, which contact and campaign), the
 * recipient the event is about when it is about one (delivery, bounce), and the event's own
 * details as the email's history records them (the SMTP reply, bounce facts, the link clicked);
 * and useSend's names for the same facts.
 */
export function emailEventData(email: EmailFacts, status: EmailStatus, details: Record<string, unknown> | null, at: number): EventData {
  const { recipient, ...rest } = details ?? {}
  const recipients = JSON.parse(email.recipients) as { to?: string[] }
  return {
    ...useSendEmailFields(email.id, status, rest, at),
    emailId: email.id,
    status,
    from: email.from_address,
    to: recipients.to ?? [],
    subject: email.subject,
    recipient: typeof recipient === 'string' ? recipient : null,
    contactId: email.contact_id,
    campaignId: email.campaign_id,
    details: rest,
  }
}

/**
 * What a change to a contact is: an update when its address, subscription or data changed (a
 * write that changed nothing else is none), and an unsubscription as well when it stopped being
 * subscribed.
 */
export function contactChangeTypes(before: ContactRow, after: ContactRow): WebhookEventType[] {
  if (before.email === after.email && before.subscribed === after.subscribed && before.data === after.data) return []
  return before.subscribed === 1 && after.subscribed === 0 ? ['contact.updated', 'contact.unsubscribed'] : ['contact.updated']
}

/**
 * A contact event's data: the contact as the API shows it, with useSend's names beside (its
 * `properties`, and the first and last name it keeps apart from them); an unsubscription says how
 * it came. useSend's `contactBookId` has no counterpart: a contact belongs to a project, and
 * contact books are views of it.
 */
export function contactEventData(row: ContactRow, type: WebhookEventType, source: UnsubscribeSource = 'update'): EventData {
  const contact = toContact(row)
  const { firstName, lastName, ...properties } = contact.data as { firstName?: unknown; lastName?: unknown }
  return {
    ...contact,
    properties,
    firstName: typeof firstName === 'string' ? firstName : null,
    lastName: typeof lastName === 'string' ? lastName : null,
    ...(type === 'contact.unsubscribed' && { source }),
  }
}

/**
 * A deleted contact's event data: its id, and its address unless it was erased (an erasure keeps
 * the address out of every payload, this one too).
 */
export const contactDeletedData = (contact: { id: string; email: string | null }): EventData => ({ id: contact.id, email: contact.email, erased: contact.email === null })

export type DomainFacts = Pick<Selectable<DomainTable>, 'id' | 'name' | 'status' | 'error_message' | 'region' | 'click_tracking' | 'open_tracking' | 'created_at' | 'updated_at'>

/** A domain event's data, in the fields of useSend's domain events, with the reason a check failed. */
export const domainEventData = (row: DomainFacts): EventData => ({
  id: row.id,
  name: row.name,
  status: row.status,
  error: row.error_message,
  region: row.region,
  clickTracking: row.click_tracking === 1,
  openTracking: row.open_tracking === 1,
  subdomain: subdomainOf(row.name),
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

export const campaignEventData = (row: Pick<Selectable<CampaignTable>, 'id' | 'name' | 'total'>, at: number): EventData => ({
  id: row.id,
  name: row.name,
  total: row.total,
  sentAt: isoTime(at),
})

/** Why a campaign paused: its user, a sending guardrail, or something that stops it going on (its domain, its segment). */
export type PauseReason = 'user' | 'complaint_rate' | 'hard_bounce_rate' | 'error'

export interface PauseFacts {
  reason: PauseReason
  /** What the campaign's `error` says; null for a pause by its user. */
  message: string | null
  /** The guardrail's window and limits, for a pause by a guardrail. */
  guardrail?: Record<string, unknown>
}

export const campaignPausedData = (row: Pick<Selectable<CampaignTable>, 'id' | 'name' | 'total'>, pause: PauseFacts, at: number): EventData => ({
  id: row.id,
  name: row.name,
  total: row.total,
  pausedAt: isoTime(at),
  reason: pause.reason,
  message: pause.message,
  ...(pause.guardrail && { guardrail: pause.guardrail }),
})
