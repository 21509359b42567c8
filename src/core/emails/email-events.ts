import type { Db, EmailStatus } from '../../db/schema.ts'
import { campaignEmailsQueued, emailEventsAdded, emailsEventAdded } from '../reactions.ts'
import type { NewDelivery } from '../queue/index.ts'
import { insertEmailEvents, insertEventForEach, insertQueuedEmails, storeDkimHeader, type NewEmailEvent, type QueuedEmail } from './emails.repository.ts'

/*
 * The one way an email's history grows, whoever adds to it (a send, the delivery loop, a report,
 * a tracked open, a cancellation): the events are written, the email takes the last one's status,
 * and what follows runs in the caller's transaction (src/core/reactions.ts).
 */

export type { NewEmailEvent }

/** Records an event and makes its status the email's. */
export const addEmailEvent = (db: Db, emailId: string, status: EmailStatus, data: Record<string, unknown> | null, at: number) =>
  addEmailEvents(db, emailId, [{ status, data, at }])

/** The same for several events of one email at once (SENT and DELIVERED): its status is set once, its webhooks asked once. */
export async function addEmailEvents(db: Db, emailId: string, events: readonly NewEmailEvent[]): Promise<void> {
  await insertEmailEvents(db, emailId, events)
  await emailEventsAdded(db, emailId, events)
}

/**
 * The email's DKIM-Signature header(s), made for its first attempt: kept once that attempt's outcome
 * is in, for every later attempt and recipient to send. A signature already kept stays.
 */
export const keepDkimHeader = (db: Db, emailId: string, header: string) => storeDkimHeader(db, { emailId, header })

/** Many emails cancelled at once (a campaign's): a CANCELLED event each. */
export async function cancelEmails(db: Db, emailIds: readonly string[], now: number): Promise<void> {
  await insertEventForEach(db, emailIds, 'CANCELLED', now)
  await emailsEventAdded(db, emailIds, 'CANCELLED', now)
}

/** A chunk of a campaign's new emails, queued with their deliveries and QUEUED events. */
export async function queueCampaignEmails(db: Db, campaign: { id: string; project_id: number }, emails: readonly QueuedEmail[], deliveries: readonly NewDelivery[], now: number): Promise<void> {
  await insertQueuedEmails(db, emails, deliveries, now)
  await campaignEmailsQueued(db, campaign.project_id, campaign.id, emails, now)
}
