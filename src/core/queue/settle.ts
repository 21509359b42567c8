import type { Selectable } from 'kysely'
import type { NewEmailEvent } from '../emails/index.ts'
import { deliverySettled, recipientRejected } from '../reactions.ts'
import type { SuppressionReason } from '../suppressions/suppressions.service.ts'
import type { Db, DeliveryTable, EmailStatus } from '../../db/schema.ts'
import { holdClaimedDelivery, updateDelivery } from './queue.repository.ts'

/*
 * The settle rule: what an attempt's outcome writes. The delivery loop (src/delivery/) makes the
 * attempt and hands its outcome here; this module writes the delivery's row and the email's events,
 * and the reactions (src/core/reactions.ts) do what follows.
 */

export type Delivery = Selectable<DeliveryTable>

/** How a message went over TLS, as the SMTP client saw it: what DELIVERED events record. */
export interface TlsDetails {
  /** TLSv1.3, TLSv1.2, ... */
  version: string
  cipher: string
  /** The certificate chains to a trusted CA and names the host connected to. */
  verified: boolean
}

/**
 * What MTA-STS said of the attempt, for the DELIVERED event: the policy's mode (`none` when the
 * domain's policy could not be had), whether it was applied (enforced), and what fell short of it.
 */
export interface MtaStsOutcome {
  mode: 'enforce' | 'testing' | 'none'
  applied: boolean
  failure?: string
}

/**
 * What an attempt recorded, for the email's events: {recipient, mx, ip, tls, smtpCode, enhancedCode,
 * response, attempt}. The delivery loop's own record (src/delivery/attempt.ts) adds what it keeps
 * for itself.
 */
export interface AttemptRecord {
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
  /** When the attempt began: the time of the SENT event of a first attempt. */
  startedAt: number
}

export type Settlement<Data extends AttemptRecord = AttemptRecord> =
  /** `afterwards`: what follows once it is recorded (the report of a sandbox complaint... address). */
  | { kind: 'delivered'; data: Data; afterwards?: () => Promise<unknown> }
  /** `held`: the wait is the site's doing (suspended), not the message's: it does not age the message. */
  | { kind: 'deferred'; data: Data; nextAttemptAt: number; category: string; held?: boolean }
  | { kind: 'bounced'; data: Data; category: string; hard: boolean }
  | { kind: 'failed'; data: Data; reason: string }
  /** Its address was put on the suppression list after it was queued; `reason` is the list's. */
  | { kind: 'suppressed'; data: Data; reason: SuppressionReason }
  /** Not attempted: its project is disabled. It waits, uncounted, until the project is enabled. */
  | { kind: 'held'; data: Data; reason: string }

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
 * events (SENT too, for the first attempt that reached a server), and the email's DKIM signature
 * once the first outcome is in. A hard bounce then suppresses the recipient and unsubscribes its
 * contact (recipientRejected in src/core/reactions.ts).
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
  const events: NewEmailEvent[] = []
  // SENT marks the first attempt that reached a server; earlier ones may have reached none.
  if (data.mx && delivery.last_mx === null && outcome.kind !== 'suppressed') {
    events.push({ status: 'SENT', data: { recipient: delivery.recipient, mx: data.mx, attempt: delivery.attempts }, at: data.startedAt })
  }
  events.push({ status: STATUS[outcome.kind], data: eventData, at: now })
  await deliverySettled(db, delivery.email_id, events, data.dkimHeader)
  if (outcome.kind === 'bounced' && outcome.hard) {
    await recipientRejected(db, delivery.project_id, delivery.recipient, 'hard_bounce', data.response?.slice(0, 500) ?? outcome.category, now)
  }
}
