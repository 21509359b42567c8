import type { ContactRow, Db, EmailStatus } from '../db/schema.ts'
import { checkAddress } from '../lib/address.ts'
import { countEmailEvents } from './analytics/counters.ts'
import { activityOf, countActivity } from './campaigns/activity.ts'
import type { CampaignRow } from './campaigns/campaign.ts'
import { changesOf, contactsByIds, unsubscribeAddress, type UnsubscribeSource } from './contacts/index.ts'
import { queueBounceNotices } from './emails/bounce-notice.ts'
import { addEmailEvent, addEmailEvents, keepDkimHeader } from './emails/email-events.ts'
import { recordEvent } from './events/record.ts'
import { holdProjectMail, releaseProjectMail } from './queue/index.ts'
import type { NewEmailEvent } from './emails/index.ts'
import { refreshMemberships } from './segments/segment-tracking.ts'
import { suppress } from './suppressions/suppressions.service.ts'
import { emitContactChange, emitContactCreated, emitContactDeleted, emitContactsWritten } from './webhooks/contact-events.ts'
import { emitDomainStatus, type CheckedDomain } from './webhooks/domain-events.ts'
import { emitEmailEvents, emitEmailsQueued } from './webhooks/email-event-webhooks.ts'
import { emitWebhookEvent } from './webhooks/emit.ts'
import { EMAIL_EVENT_TYPES } from './webhooks/event-types.ts'
import { campaignEventData, campaignPausedData, type EmailFacts, type PauseFacts } from './webhooks/payload.ts'

/*
 * What follows a change, in one place. The module that owns a table makes its write, then calls
 * the function here that names the change, in the same transaction: sending and campaign
 * counters, webhook deliveries and segment membership follow every change the same way, whichever
 * path made it (the HTTP API, the SMTP relay and report listener, the delivery loop, campaigns,
 * workflows, the CLI, contact imports). A service that makes several changes in one transaction
 * (a tracked event and its contact; contacts and their listing) reports them once, after the
 * last, so that each reaction sees the whole change.
 *
 * Two reactions are not called from here: they read what was written, past a cursor of their own.
 * - Workflow triggers. The scanner (workflows/scanner.ts) reads `events` and `email_events` and
 *   starts or wakes runs; the segment entries and exits recorded here reach it the same way.
 * - Segment membership that follows mail activity (a condition on delivered, opened, ...). The
 *   membership tracker (src/workers/membership-tracker.ts) re-evaluates the contacts of emails with new events
 *   on its round: re-evaluating every tracked segment at each delivery outcome would weigh on the
 *   delivery loop. A change to the contact itself (a bounce's or complaint's unsubscription among
 *   them) is re-evaluated here, at once.
 */

/**
 * Events were recorded for one email: the sending counters of its project, domain and hour count
 * them (what the guardrails and analytics read), its campaign counts them (each recipient once,
 * however many times it opens or clicks), its project's webhooks hear of them, and a relayed
 * email's bounce is sent back to its envelope sender as a DSN when the relay was asked to.
 */
export async function emailEventsAdded(db: Db, emailId: string, events: readonly NewEmailEvent[]): Promise<void> {
  for (const { status, data, at } of events) {
    const activity = activityOf(status)
    if (activity) await countActivity(db, emailId, activity, at, data?.hard === true)
  }
  await emitEmailEvents(db, emailId, events)
  // A relayed email's bounce is told to its envelope sender when it asked (MAILSTEAD_RELAY_BOUNCE_NOTICES).
  await queueBounceNotices(db, emailId, events)
  // Last: the hour's row of the domain is the hottest a batch of outcomes writes. Taken after the
  // campaign's row, as every settle takes them, batches of several processes wait on each other
  // instead of deadlocking (measured: taken first, a 10,000-contact campaign on three processes
  // took twice as long, each deadlock costing PostgreSQL's second of detection).
  await countEmailEvents(db, emailId, events)
}

/**
 * The same event, without data, was recorded for many emails at once (a campaign's cancelled
 * emails). When nothing follows an event of that status (CANCELLED), the emails are not walked.
 */
export async function emailsEventAdded(db: Db, emailIds: readonly string[], status: EmailStatus, at: number): Promise<void> {
  if (activityOf(status) === undefined && EMAIL_EVENT_TYPES[status] === undefined) return
  for (const emailId of emailIds) await emailEventsAdded(db, emailId, [{ status, data: null, at }])
}

/** A chunk of a campaign's emails was queued, each with its QUEUED event: webhooks hear of them together. */
export const campaignEmailsQueued = (db: Db, projectId: number, campaignId: string, emails: ReadonlyArray<Omit<EmailFacts, 'campaign_id'>>, at: number) =>
  emitEmailsQueued(db, projectId, campaignId, emails, at)

/** One contact written: as it was (undefined when the write created it) and as it is. */
export interface ContactChange {
  before: ContactRow | undefined
  after: ContactRow
}

/**
 * One contact was created or written: contact.created, or contact.updated and contact.unsubscribed
 * (saying `source`) when the write changed it, and its project's tracked segments re-evaluated.
 */
export async function contactSaved(db: Db, change: ContactChange, now: number, source: UnsubscribeSource = 'update'): Promise<void> {
  const { before, after } = change
  if (before) await emitContactChange(db, before, after, now, source)
  else await emitContactCreated(db, after, now)
  await refreshMemberships(db, after.project_id, [after.id], now)
}

/**
 * A contact was edited (PATCH /contacts/{id}): what changed goes into its history as a
 * `contact.updated` event (each data key, the subscription, the address: from and to), then what
 * follows any write of a contact.
 */
export async function contactEdited(db: Db, change: ContactChange & { before: ContactRow }, now: number): Promise<void> {
  const changes = changesOf(change.before, change.after)
  if (changes) await recordEvent(db, { project_id: change.after.project_id, contact_id: change.after.id, name: 'contact.updated', data: { ...changes } }, now)
  await contactSaved(db, change, now)
}

/**
 * A contact was deleted, or erased (`email` null): webhooks hear of it by id, and of its address
 * only when it was not erased. Its events, listings and runs went with it.
 */
export const contactDeleted = (db: Db, projectId: number, contact: { id: string; email: string | null }, now: number) => emitContactDeleted(db, projectId, contact, now)

/**
 * The recipient of an email subscribed or unsubscribed through it (its unsubscribe page, a mail
 * client's one-click request, a mail): the change goes into the contact's history as
 * `contact.subscribed` or `contact.unsubscribed`, and an unsubscription counts once for the
 * email's campaign.
 */
export async function subscriptionChanged(db: Db, emailId: string, change: ContactChange, source: UnsubscribeSource, now: number): Promise<void> {
  const { after } = change
  const name = after.subscribed === 1 ? 'contact.subscribed' : 'contact.unsubscribed'
  await recordEvent(db, { project_id: after.project_id, contact_id: after.id, name, data: { emailId, source } }, now)
  if (after.subscribed === 0) await countActivity(db, emailId, 'unsubscribed', now)
  await contactSaved(db, change, now, source)
}

/**
 * A delivery was settled by an attempt: its email takes the attempt's events (SENT, then the
 * outcome), and, from the first outcome, the DKIM-Signature the attempt made, which every later
 * attempt and recipient sends. The queue calls this after writing the delivery's row, in the same
 * transaction; the email's status, counters and webhooks follow from its events.
 */
export async function deliverySettled(db: Db, emailId: string, events: readonly NewEmailEvent[], dkimHeader?: string): Promise<void> {
  if (dkimHeader) await keepDkimHeader(db, emailId, dkimHeader)
  await addEmailEvents(db, emailId, events)
}

/** A delivery that had not left was taken out of the queue: its email records it as cancelled. */
export const deliveryCancelled = (db: Db, emailId: string, recipient: string, now: number) =>
  addEmailEvent(db, emailId, 'CANCELLED', { recipient }, now)

/**
 * A recipient bounced for good (at an attempt, or in a report that came later) or complained: the
 * address is suppressed in its project, and its contact, when subscribed, is no longer, with what
 * follows any unsubscription (contact.updated and contact.unsubscribed saying why, segment
 * membership). Whichever path saw it (the delivery loop's settle, the report listener) calls this
 * after writing the delivery's state and the email's event, in the same transaction.
 */
export async function recipientRejected(db: Db, projectId: number, recipient: string, reason: 'hard_bounce' | 'complaint', detail: string | null, now: number): Promise<void> {
  const address = checkAddress(recipient)
  if (!address.ok) return
  await suppress(db, projectId, recipient, reason, detail, now)
  await unsubscribeAddress(db, projectId, address.value.key, reason, now)
}

/** Contacts written at once, by id. */
export interface ContactWrites {
  created?: readonly string[]
  /** Contacts the write changed. */
  updated?: readonly string[]
  /** Those among `updated` that stopped being subscribed. */
  unsubscribed?: readonly string[]
  /** Contacts whose rows did not change but whose membership may have: a listing, an event. */
  touched?: readonly string[]
}

/**
 * Contacts were written at once (an import chunk, a contact book's or static segment's contacts,
 * a suppression's unsubscription): their webhook events, and their project's tracked segments
 * re-evaluated for all of them.
 */
export async function contactsWritten(db: Db, projectId: number, writes: ContactWrites, now: number, source: UnsubscribeSource = 'update'): Promise<void> {
  await emitContactsWritten(db, projectId, writes, source, now, (ids) => contactsByIds(db, projectId, ids))
  const ids = new Set([...(writes.created ?? []), ...(writes.updated ?? []), ...(writes.unsubscribed ?? []), ...(writes.touched ?? [])])
  await refreshMemberships(db, projectId, [...ids], now)
}

type CampaignFacts = Pick<CampaignRow, 'id' | 'project_id' | 'name' | 'total'>

/** The campaign's last recipients were handed to the queue. */
export const campaignSent = (db: Db, campaign: CampaignFacts, now: number) =>
  emitWebhookEvent(db, campaign.project_id, 'campaign.sent', campaignEventData(campaign, now), now)

/** The campaign was paused, by its user or by a guardrail. */
export const campaignPaused = (db: Db, campaign: CampaignFacts, pause: PauseFacts, now: number) =>
  emitWebhookEvent(db, campaign.project_id, 'campaign.paused', () => campaignPausedData(campaign, pause, now), now)

/** A check moved a domain's status (domain.verified, domain.failed). */
export const domainChecked = (db: Db, before: Pick<CheckedDomain, 'status'>, after: CheckedDomain, now: number) => emitDomainStatus(db, before, after, now)

/**
 * A project was disabled or enabled: its mail that waits is held (never bounced), or sent on. The
 * queue, which reads a project's state when a claimed delivery's project turns out disabled, sits
 * below projects, so projects reach it through here.
 */
export const projectDisabledChanged = (db: Db, projectId: number, disabled: boolean, now: number) =>
  disabled ? holdProjectMail(db, projectId, now) : releaseProjectMail(db, projectId, now)
