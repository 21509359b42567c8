import { prepared } from '../../db/prepared.ts'
import type { Db, EmailStatus } from '../../db/schema.ts'
import { campaignOfEmail } from '../campaigns/campaign-queries.ts'
import { emailRows } from '../emails/email-queries.ts'
import { deliverEvents, emitWebhookEvents } from './emit.ts'
import { EMAIL_EVENT_TYPES } from './event-types.ts'
import { emailEventData, type EmailFacts } from './payload.ts'
import { enabledForEmail, takers } from './webhooks.repository.ts'

/**
 * The webhook events of an email's events (SCHEDULED and CANCELLED have none), in the caller's
 * transaction. The project is the email's: one indexed lookup finds its webhooks, and the email
 * is read only when some take one of the events' types.
 */
export async function emitEmailEvents(db: Db, emailId: string, events: ReadonlyArray<{ status: EmailStatus; data: Record<string, unknown> | null; at: number }>): Promise<void> {
  const typed = events.flatMap((event) => (EMAIL_EVENT_TYPES[event.status] ? [{ ...event, type: EMAIL_EVENT_TYPES[event.status]! }] : []))
  if (typed.length === 0) return
  const enabled = await enabledForEmail(db, emailId)
  if (enabled.length === 0) return
  let email: EmailFacts | undefined
  for (const event of typed) {
    const webhooks = takers(enabled, event.type)
    if (webhooks.length === 0) continue
    email ??= (await selectFacts(db, { emailId }))[0]
    if (email) await deliverEvents(db, webhooks, event.type, [emailEventData(email, event.status, event.data, event.at)], event.at)
  }
}

const selectFacts = prepared((db, p: { emailId: string }) =>
  db
    .selectFrom(emailRows(db).as('e'))
    .select(['e.id', 'e.from_address', 'e.recipients', 'e.subject', 'e.contact_id'])
    .select((eb) => campaignOfEmail(eb, 'e.id').as('campaign_id'))
    .where('e.id', '=', p.emailId),
)

/** email.queued for many new emails of a campaign at once, as they are handed to the queue. */
export const emitEmailsQueued = (db: Db, projectId: number, campaignId: string, emails: ReadonlyArray<Omit<EmailFacts, 'campaign_id'>>, at: number) =>
  emails.length === 0 ? Promise.resolve(0) : emitWebhookEvents(db, projectId, 'email.queued', () => emails.map((email) => emailEventData({ ...email, campaign_id: campaignId }, 'QUEUED', null, at)), at)
