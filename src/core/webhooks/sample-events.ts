import type { ContactRow, EmailStatus } from '../../db/schema.ts'
import type { WebhookEventType } from './event-types.ts'
import { campaignEventData, campaignPausedData, contactDeletedData, contactEventData, domainEventData, emailEventData, type EventData } from './payload.ts'

/*
 * A sample of each event type's data for a webhook's test call: made by the functions that make
 * the real events' data, from made-up rows, so that a sample has the real payload's shape and
 * follows it when it changes. Addresses are at example.com and example.net (RFC 2606).
 */

const SAMPLE_EMAIL = {
  id: '00000000-0000-7000-8000-000000000001',
  from_address: 'Acme <hello@example.com>',
  recipients: JSON.stringify({ to: ['Jane Doe <jane@example.net>'], cc: [], bcc: [], replyTo: [] }),
  subject: 'Your receipt',
  contact_id: '00000000-0000-7000-8000-000000000002',
  campaign_id: null,
}

/** What each email event records of its delivery (src/core/queue/settle.ts, the report listener, the tracker). */
const emailDetails = (at: number): Record<string, [EmailStatus, Record<string, unknown> | null]> => ({
  'email.queued': ['QUEUED', null],
  'email.sent': ['SENT', { recipient: 'jane@example.net', mx: 'mx.example.net', ip: '192.0.2.25' }],
  'email.delivered': ['DELIVERED', { recipient: 'jane@example.net', mx: 'mx.example.net', ip: '192.0.2.25', smtpCode: 250, enhancedCode: '2.0.0', response: '250 2.0.0 OK queued as 4Xk2' }],
  'email.delivery_delayed': ['DELIVERY_DELAYED', { recipient: 'jane@example.net', smtpCode: 451, enhancedCode: '4.7.1', response: '451 4.7.1 Greylisted, try again later', category: 'greylisting', nextAttemptAt: new Date(at + 15 * 60_000).toISOString() }],
  'email.bounced': ['BOUNCED', { recipient: 'jane@example.net', smtpCode: 550, enhancedCode: '5.1.1', response: '550 5.1.1 No such user', category: 'recipient', hard: true }],
  'email.complained': ['COMPLAINED', { recipient: 'jane@example.net', feedbackType: 'abuse', userAgent: 'Example FBL/1.0' }],
  'email.opened': ['OPENED', { userAgent: 'Mozilla/5.0', ip: '198.51.100.7' }],
  'email.clicked': ['CLICKED', { url: 'https://example.com/receipt', userAgent: 'Mozilla/5.0', ip: '198.51.100.7' }],
  'email.failed': ['FAILED', { reason: 'The sending domain was removed' }],
  'email.suppressed': ['SUPPRESSED', { recipient: 'jane@example.net', reason: 'hard_bounce' }],
})

const sampleContact = (at: number, subscribed: boolean): ContactRow => ({
  id: SAMPLE_EMAIL.contact_id,
  project_id: 0,
  email: 'jane@example.net',
  email_key: 'jane@example.net',
  subscribed: subscribed ? 1 : 0,
  data: JSON.stringify({ firstName: 'Jane', lastName: 'Doe', plan: 'pro' }),
  created_at: at - 86_400_000,
  updated_at: at,
})

const sampleDomain = (at: number, verified: boolean) => ({
  id: 1,
  name: 'example.com',
  status: verified ? ('SUCCESS' as const) : ('FAILED' as const),
  error_message: verified ? null : 'No DKIM record at mailstead._domainkey.example.com',
  region: 'us-east-1',
  click_tracking: 0,
  open_tracking: 0,
  created_at: at - 86_400_000,
  updated_at: at,
})

const SAMPLE_CAMPAIGN = { id: '00000000-0000-7000-8000-000000000003', name: 'November newsletter', total: 1200 }

/** The data of a sample `type` event, as at `at`. */
export function sampleEventData(type: WebhookEventType, at: number): EventData {
  const email = emailDetails(at)[type]
  if (email) return emailEventData(SAMPLE_EMAIL, email[0], email[1], at)
  switch (type) {
    case 'contact.created':
    case 'contact.updated':
      return contactEventData(sampleContact(at, true), type)
    case 'contact.unsubscribed':
      return contactEventData(sampleContact(at, false), type, 'link')
    case 'contact.deleted':
      return contactDeletedData({ id: sampleContact(at, true).id, email: null })
    case 'domain.verified':
      return domainEventData(sampleDomain(at, true))
    case 'domain.failed':
      return domainEventData(sampleDomain(at, false))
    case 'campaign.sent':
      return campaignEventData(SAMPLE_CAMPAIGN, at)
    case 'campaign.paused':
      return campaignPausedData(SAMPLE_CAMPAIGN, { reason: 'user', message: null }, at)
    default:
      throw new Error(`No sample for ${type}`)
  }
}
