import { addressOf, parseFieldGroups, untyped, type FieldGroup } from './report-fields.ts'

/** One recipient's part of a delivery status notification (RFC 3464 per-recipient fields). */
export interface RecipientStatus {
  /** Final-Recipient address, without the "rfc822;" type, as written; null when absent. */
  recipient: string | null
  /** Original-Recipient: the address as the sender gave it, before any forwarding rewrote it; null when absent. */
  originalRecipient: string | null
  /** Action, lower case: failed, delayed, delivered, relayed, expanded. */
  action: string
  /** Status, e.g. "5.1.1"; null when absent or malformed. */
  status: string | null
  /** Diagnostic-Code without its type ("smtp; "), unfolded; null when absent. */
  diagnostic: string | null
  /** Remote-MTA without its type ("dns; "); null when absent. */
  remoteMta: string | null
}

/** What the fields of a message/delivery-status part say. */
export interface DeliveryStatus {
  /** Reporting-MTA without its type. */
  reportingMta: string | null
  /** The envelope sender of what bounced, where the MTA says it (Postfix: X-Postfix-Sender). */
  envelopeSender: string | null
  /** The original's Message-ID, where the MTA says it (Gmail: X-Original-Message-ID). */
  originalMessageId: string | null
  recipients: RecipientStatus[]
}

const STATUS = /^[245]\.\d{1,3}\.\d{1,3}$/
const RECIPIENT_FIELDS = ['final-recipient', 'original-recipient', 'action', 'status']

/**
 * The fields of a message/delivery-status (or message/global-delivery-status) part. The
 * per-message fields are those of the groups that name no recipient (normally only the first);
 * each group that does is one recipient, so a report that leaves out its per-message group, or
 * has stray blank lines, still reads right.
 */
export function parseDeliveryStatus(text: string): DeliveryStatus {
  const groups = parseFieldGroups(text)
  const isRecipient = (group: FieldGroup) => RECIPIENT_FIELDS.some((name) => group.has(name))
  const perMessage = (name: string) => groups.find((group) => !isRecipient(group) && group.has(name))?.get(name)
  return {
    reportingMta: untyped(perMessage('reporting-mta')),
    envelopeSender: addressOf(perMessage('x-postfix-sender')),
    originalMessageId: messageIdOf(perMessage('x-original-message-id')),
    recipients: groups.filter(isRecipient).map(recipientStatus),
  }
}

function recipientStatus(group: FieldGroup): RecipientStatus {
  const status = statusOf(group.get('status'))
  return {
    recipient: addressOf(group.get('final-recipient')),
    originalRecipient: addressOf(group.get('original-recipient')),
    action: group.get('action')?.toLowerCase() || actionOfStatus(status),
    status,
    diagnostic: untyped(group.get('diagnostic-code')),
    remoteMta: untyped(group.get('remote-mta')),
  }
}

/** A Status value: the code alone (comments taken away), when it is a well-formed one. */
export function statusOf(value: string | undefined): string | null {
  const code = value?.replace(/\([^)]*\)/g, '').trim()
  return code && STATUS.test(code) ? code : null
}

/** RFC 3464 requires Action; when a report leaves it out, its status class says what happened. */
function actionOfStatus(status: string | null): string {
  if (status?.startsWith('5.')) return 'failed'
  if (status?.startsWith('4.')) return 'delayed'
  if (status?.startsWith('2.')) return 'delivered'
  return 'unknown'
}

/** A Message-ID with its angle brackets, or null when the value is not one. */
export function messageIdOf(value: string | undefined): string | null {
  const id = value?.trim().replace(/^<?\s*([^<>\s]+@[^<>\s]+?)\s*>?$/, '<$1>')
  return id && /^<[^<>\s]+@[^<>\s]+>$/.test(id) ? id : null
}
