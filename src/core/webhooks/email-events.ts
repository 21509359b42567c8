import { prepared } from '../../db/prepared.ts'
import type { Db, EmailStatus } from '../../db/schema.ts'
import { deliverEvents, emitWebhookEvents } from './emit.ts'
import { EMAIL_EVENT_TYPES } from './event-types.ts'
import { emailEventData, type EmailFacts } from './payload.ts'
import { subscribedToEmail } from './webhooks.repository.ts'

/**
 * The webhook event of an email event (SCHEDULED and CANCELLED have none), in the caller's
 * transaction. The project is the email's: one indexed lookup finds the webhooks that take the
 * type, and the email is read only when there are some.
 */
export async function emitEmailEvent(db: Db, emailId: string, status: EmailStatus, details: Record<string, unknown> | null, at: number): Promise<void> {
  const type = EMAIL_EVENT_TYPES[status]
  if (type === undefined) return
  const webhooks = await subscribedToEmail(db, emailId, type)
  if (webhooks.length === 0) return
  const [email] = await selectFacts(db, { emailId })
  if (email) await deliverEvents(db, webhooks, type, [emailEventData(email, status, details)], at)
}

const selectFacts = prepared((db, p: { emailId: string }) =>
  db
    .selectFrom('emails as e')
    .select(['e.id', 'e.from_address', 'e.recipients', 'e.subject', 'e.contact_id'])
    .select((eb) => eb.selectFrom('campaign_recipients as r').select('r.campaign_id').whereRef('r.email_id', '=', 'e.id').limit(1).as('campaign_id'))
    .where('e.id', '=', p.emailId),
)

/** email.queued for many new emails of a campaign at once, as they are handed to the queue. */
export const emitEmailsQueued = (db: Db, projectId: number, campaignId: string, emails: ReadonlyArray<Omit<EmailFacts, 'campaign_id'>>, at: number) =>
  emails.length === 0 ? Promise.resolve(0) : emitWebhookEvents(db, projectId, 'email.queued', () => emails.map((email) => emailEventData({ ...email, campaign_id: campaignId }, 'QUEUED', null)), at)
