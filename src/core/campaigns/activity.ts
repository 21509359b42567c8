import { prepared } from '../../db/prepared.ts'
import type { CampaignRecipientTable, CampaignTable, Db, EmailStatus } from '../../db/schema.ts'

type Mark = keyof Pick<CampaignRecipientTable, 'sent_at' | 'delivered_at' | 'opened_at' | 'clicked_at' | 'bounced_at' | 'complained_at' | 'unsubscribed_at'>
type Counter = keyof Pick<CampaignTable, 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed'>

/** The recipient's first-time mark, and the campaign counter it moves. */
const ACTIVITY = {
  sent: ['sent_at', 'sent'],
  delivered: ['delivered_at', 'delivered'],
  opened: ['opened_at', 'opened'],
  clicked: ['clicked_at', 'clicked'],
  bounced: ['bounced_at', 'bounced'],
  complained: ['complained_at', 'complained'],
  unsubscribed: ['unsubscribed_at', 'unsubscribed'],
} as const satisfies Record<string, readonly [Mark, Counter]>

export type Activity = keyof typeof ACTIVITY

const ACTIVITY_OF_STATUS: Partial<Record<EmailStatus, Activity>> = {
  SENT: 'sent',
  DELIVERED: 'delivered',
  OPENED: 'opened',
  CLICKED: 'clicked',
  BOUNCED: 'bounced',
  COMPLAINED: 'complained',
}

/** Marks the recipient of this email, the first time only; says which campaign when it did. */
const markers = Object.fromEntries(
  Object.entries(ACTIVITY).map(([activity, [mark]]) => [
    activity,
    prepared((db, p: { emailId: string; at: number }) =>
      db.updateTable('campaign_recipients').set(mark, p.at).where('email_id', '=', p.emailId).where(mark, 'is', null).returning('campaign_id'),
    ),
  ]),
) as Record<Activity, (db: Db, p: { emailId: string; at: number }) => Promise<Array<{ campaign_id: string }>>>

const counters = Object.fromEntries(
  Object.entries(ACTIVITY).map(([activity, [, counter]]) => [
    activity,
    prepared((db, p: { campaignId: string; hard: number }) =>
      db
        .updateTable('campaigns')
        .set((eb) => ({ [counter]: eb(counter, '+', 1), hard_bounced: eb('hard_bounced', '+', p.hard) }))
        .where('id', '=', p.campaignId),
    ),
  ]),
) as Record<Activity, (db: Db, p: { campaignId: string; hard: number }) => Promise<unknown>>

/**
 * Counts what happened to a campaign email, in the caller's transaction: each counter counts a
 * recipient once, however many times it opens or clicks. Emails that are not a campaign's change
 * nothing.
 */
export async function countActivity(db: Db, emailId: string, activity: Activity, at: number, hard = false): Promise<void> {
  const [marked] = await markers[activity](db, { emailId, at })
  if (marked) await counters[activity](db, { campaignId: marked.campaign_id, hard: hard && activity === 'bounced' ? 1 : 0 })
}

/** The activity an email event stands for, if campaigns count it. */
export const activityOf = (status: EmailStatus): Activity | undefined => ACTIVITY_OF_STATUS[status]
