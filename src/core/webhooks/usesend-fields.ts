import type { EmailStatus } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'

/**
 * The fields useSend's email events carry (usesend-js's `WebhookEventData`), beside Mailstead's
 * own: a receiver written for useSend reads `data.id`, `data.occurredAt` and, by event, `bounce`,
 * `failed`, `suppression`, `open` or `click`. They are said from the facts Mailstead records in
 * the event's details, so the two never disagree.
 */
export function useSendEmailFields(emailId: string, status: EmailStatus, details: Record<string, unknown>, at: number): Record<string, unknown> {
  const base = { id: emailId, occurredAt: isoTime(at) }
  const text = (key: string) => (typeof details[key] === 'string' ? (details[key] as string) : undefined)
  switch (status) {
    case 'BOUNCED':
      return {
        ...base,
        bounce: {
          type: details.hard === true ? 'Permanent' : details.hard === false ? 'Transient' : 'Undetermined',
          subType: BOUNCE_SUBTYPES[text('category') ?? ''] ?? 'General',
          message: text('response') ?? text('diagnostic') ?? text('status') ?? '',
        },
      }
    case 'FAILED':
      return { ...base, failed: { reason: text('reason') ?? 'The message could not be sent' } }
    case 'SUPPRESSED':
      return { ...base, suppression: { type: SUPPRESSION_TYPES[text('reason') ?? ''] ?? 'Manual', reason: text('reason') ?? 'manual' } }
    case 'OPENED':
      return { ...base, open: { timestamp: isoTime(at), ...visitor(details) } }
    case 'CLICKED':
      return { ...base, click: { timestamp: isoTime(at), url: text('url') ?? '', ...visitor(details) } }
    default:
      return base
  }
}

/** Mailstead's bounce categories (src/delivery/classify.ts, DSN categories) in useSend's (SES's) subtypes. */
const BOUNCE_SUBTYPES: Record<string, string> = {
  recipient: 'NoEmail',
  domain: 'NoEmail',
  'mailbox-disabled': 'NoEmail',
  'mailbox-full': 'MailboxFull',
  'message-too-large': 'MessageTooLarge',
  policy: 'ContentRejected',
}

const SUPPRESSION_TYPES: Record<string, string> = { hard_bounce: 'Bounce', complaint: 'Complaint', manual: 'Manual' }

const visitor = (details: Record<string, unknown>) => ({
  ...(typeof details.userAgent === 'string' && { userAgent: details.userAgent }),
  ...(typeof details.ip === 'string' && { ip: details.ip }),
})
