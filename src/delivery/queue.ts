import type { Selectable } from 'kysely'
import { holdClaimedDelivery, updateDelivery } from '../core/emails/deliveries.repository.ts'
import { addEmailEvents, type NewEmailEvent } from '../core/emails/email-events.ts'
import { suppressRecipient, type SuppressionReason } from '../core/suppressions/suppressions.service.ts'
import { prepared } from '../db/prepared.ts'
import type { Db, DeliveryTable, EmailStatus } from '../db/schema.ts'
import type { SmtpReply } from './classify.ts'
import type { TlsDetails } from './smtp-client.ts'
import type { MtaStsOutcome } from './transfer.ts'

export type Delivery = Selectable<DeliveryTable>

/** What an attempt recorded, for the email's events: {recipient, mx, ip, tls, smtpCode, enhancedCode, response, attempt}. */
export interface AttemptData {
  /** The MX host that answered, and the address it was reached at. */
  mx?: string
  ip?: string
  /** The TLS session the message went over; absent in plain text. */
  tls?: TlsDetails
  /** What the recipient domain's MTA-STS policy made of the attempt; absent when it has none. */
  mtaSts?: MtaStsOutcome
  smtpCode?: number
  enhancedCode?: string
  response?: string
  /** The email's DKIM-Signature header(s), made for this attempt and not stored yet: its outcome stores it. */
  dkimHeader?: string
  /** The last SMTP reply a server gave, read: what shaping judges the site by. Not recorded. */
  reply?: SmtpReply
  /** When the attempt began: the time of the SENT event of a first attempt. */
  startedAt: number
}

export type Settlement =
  /** `afterwards`: what follows once it is recorded (the report of a sandbox complaint... address). */
  | { kind: 'delivered'; data: AttemptData; afterwards?: () => Promise<unknown> }
  /** `held`: the wait is the site's doing (suspended), not the message's: it does not age the message. */
  | { kind: 'deferred'; data: AttemptData; nextAttemptAt: number; category: string; held?: boolean }
  | { kind: 'bounced'; data: AttemptData; category: string; hard: boolean }
  | { kind: 'failed'; data: AttemptData; reason: string }
  /** Its address was put on the suppression list after it was queued; `reason` is the list's. */
  | { kind: 'suppressed'; data: AttemptData; reason: SuppressionReason }
  /** Not attempted: its project is disabled. It waits, uncounted, until the project is enabled. */
  | { kind: 'held'; data: AttemptData; reason: string }

const storeSignature = prepared((db, p: { emailId: string; header: string }) =>
  db.updateTable('emails').set({ dkim_header: p.header }).where('id', '=', p.emailId).where('dkim_header', 'is', null),
)

/** Characters of a reply or a deferral's trace kept: room for 5 hosts and 10 addresses. */
const RESPONSE_KEPT = 2000

const STATE = { delivered: 'delivered', deferred: 'deferred', bounced: 'bounced', failed: 'failed', suppressed: 'suppressed' } as const
const STATUS: Record<Exclude<Settlement['kind'], 'held'>, EmailStatus> = {
  delivered: 'DELIVERED',
  deferred: 'DELIVERY_DELAYED',
  bounced: 'BOUNCED',
  failed: 'FAILED',
  suppressed: 'SUPPRESSED',
}

/**
 * Records an attempt's outcome in the caller's transaction: the delivery's state, the email's
 * events (SENT too, for the first attempt that reached a server), and for a hard bounce the
 * suppression and the contact's unsubscription.
 */
export async function settle(db: Db, delivery: Delivery, outcome: Settlement, now: number): Promise<void> {
  if (outcome.kind === 'held') return holdClaimedDelivery(db, delivery, now)
  const { data } = outcome
  const eventData = {
    recipient: delivery.recipient,
    ...(data.mx && { mx: data.mx }),
    ...(data.ip && { ip: data.ip }),
    // A delivered message says how it travelled: TLS or plain text, and under which MTA-STS policy.
    ...(outcome.kind === 'delivered' && { tls: data.tls ?? null, mtaSts: data.mtaSts ?? null }),
    ...(data.smtpCode !== undefined && { smtpCode: data.smtpCode }),
    ...(data.enhancedCode && { enhancedCode: data.enhancedCode }),
    ...(data.response && { response: data.response.slice(0, RESPONSE_KEPT) }),
    attempt: delivery.attempts,
    ...(outcome.kind === 'deferred' && { category: outcome.category, nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString() }),
    ...(outcome.kind === 'bounced' && { category: outcome.category, hard: outcome.hard }),
    ...((outcome.kind === 'failed' || outcome.kind === 'suppressed') && { reason: outcome.reason }),
  }
  const next = outcome.kind === 'deferred' ? outcome.nextAttemptAt : delivery.next_attempt_at
  // A wait the site imposes does not age the message: its expiry moves with it.
  const siteWait = outcome.kind === 'deferred' && outcome.held ? Math.max(0, next - now) : 0
  // Written only while this process holds the claim: if its lease ran out and another process
  // took the delivery over, that one's attempt is the one recorded.
  const settled = await updateDelivery(db, {
    id: delivery.id,
    claimed_by: delivery.claimed_by,
    state: STATE[outcome.kind],
    attempts: delivery.attempts,
    next_attempt_at: next,
    expires_at: delivery.expires_at + siteWait,
    last_mx: data.mx ?? delivery.last_mx,
    last_ip: data.ip ?? delivery.last_ip,
    last_tls: data.mx ? (data.tls ? JSON.stringify({ ...data.tls, ...(data.mtaSts && { mtaSts: data.mtaSts }) }) : null) : delivery.last_tls,
    last_response: data.response?.slice(0, RESPONSE_KEPT) ?? delivery.last_response,
    updated_at: now,
  })
  if (settled.length === 0) return
  // The signature every later attempt and recipient sends, once the first outcome is in.
  if (data.dkimHeader) await storeSignature(db, { emailId: delivery.email_id, header: data.dkimHeader })
  const events: NewEmailEvent[] = []
  // SENT marks the first attempt that reached a server; earlier ones may have reached none.
  if (data.mx && delivery.last_mx === null && outcome.kind !== 'suppressed') {
    events.push({ status: 'SENT', data: { recipient: delivery.recipient, mx: data.mx, attempt: delivery.attempts }, at: data.startedAt })
  }
  events.push({ status: STATUS[outcome.kind], data: eventData, at: now })
  await addEmailEvents(db, delivery.email_id, events)
  if (outcome.kind === 'bounced' && outcome.hard) {
    await suppressRecipient(db, delivery.project_id, delivery.recipient, 'hard_bounce', data.response?.slice(0, 500) ?? outcome.category, now)
  }
}
