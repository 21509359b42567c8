import { sql, type Selectable } from 'kysely'
import { addEmailEvents, type NewEmailEvent } from '../core/emails/email-events.ts'
import { holdClaimedDelivery } from '../core/emails/held-mail.ts'
import { countOutcome } from '../core/guardrails/counters.ts'
import { suppressRecipient } from '../core/suppressions/suppressions.service.ts'
import { claim, UNCLAIMED, type Claimant } from '../db/claims.ts'
import { prepared } from '../db/prepared.ts'
import type { DB, Db, DeliveryTable, EmailStatus } from '../db/schema.ts'
import type { SmtpReply } from './classify.ts'
import type { TlsDetails } from './smtp-client.ts'
import type { MtaStsOutcome } from './transfer.ts'

export type Delivery = Selectable<DeliveryTable>

/** Waiting deliveries, written as the partial index `deliveries_waiting` is, so SQLite uses it. */
export const WAITING = sql<boolean>`state IN ('queued', 'deferred', 'scheduled')`

/** How many of the oldest due rows one claim looks at. */
const CLAIM_WINDOW = 2000

/**
 * Claims up to `limit` due deliveries in one statement: the oldest first, at most `perDomain` for
 * any one destination domain (so one domain's backlog cannot take every free slot), skipping
 * destination domains and projects that are at their limits. Claimed rows are `sending` and count
 * an attempt. Processes sharing a PostgreSQL database each claim rows the others have not.
 */
export async function claimDue(
  db: Db,
  claimant: Claimant,
  now: number,
  limit: number,
  perDomain: number,
  skip: { domains: string[]; projects: number[] },
): Promise<Delivery[]> {
  let window = db
    .selectFrom('deliveries')
    .select(['id', 'recipient_domain', 'next_attempt_at'])
    .where(WAITING)
    .where('next_attempt_at', '<=', now)
  if (skip.domains.length > 0) window = window.where('recipient_domain', 'not in', skip.domains)
  if (skip.projects.length > 0) window = window.where('project_id', 'not in', skip.projects)
  const ranked = db
    .selectFrom(window.orderBy('next_attempt_at').limit(CLAIM_WINDOW).as('due'))
    .select((eb) => ['due.id', eb.fn.agg<number>('row_number').over((over) => over.partitionBy('due.recipient_domain').orderBy('due.next_attempt_at')).as('rank')])
  const picked = db.selectFrom(ranked.as('ranked')).select('ranked.id').where('ranked.rank', '<=', perDomain).limit(limit)
  return claim(db, 'deliveries', claimant, now, {
    picked,
    still: (eb) => eb.and([WAITING, eb('next_attempt_at', '<=', now)]),
    set: { state: 'sending', attempts: sql`attempts + 1`, updated_at: now },
  })
    .returningAll()
    .execute()
}

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
  | { kind: 'delivered'; data: AttemptData }
  /** `held`: the wait is the site's doing (suspended), not the message's: it does not age the message. */
  | { kind: 'deferred'; data: AttemptData; nextAttemptAt: number; category: string; held?: boolean }
  | { kind: 'bounced'; data: AttemptData; category: string; hard: boolean }
  | { kind: 'failed'; data: AttemptData; reason: string }
  | { kind: 'suppressed'; data: AttemptData }
  /** Not attempted: its project is disabled. It waits, uncounted, until the project is enabled. */
  | { kind: 'held'; data: AttemptData; reason: string }

/**
 * Claimed deliveries whose site holds its mail back (suspended, or at the day's warm-up cap) go
 * back to wait until `until`, in one statement: not attempted, so no attempt counts and no event
 * is written (a held campaign of 100,000 would be 100,000 events a day); the wait does not age
 * them, and `last_response` says why they wait.
 */
export function holdDeliveries(db: Db, owner: string, ids: readonly number[], until: number, reason: string, now: number) {
  return db
    .updateTable('deliveries')
    .set((eb) => ({
      state: 'deferred',
      attempts: eb('attempts', '-', 1),
      expires_at: eb('expires_at', '+', Math.max(0, until - now)),
      next_attempt_at: until,
      last_response: reason,
      updated_at: now,
      ...UNCLAIMED,
    }))
    .where('id', 'in', ids)
    .where('claimed_by', '=', owner)
    .execute()
}

type DeliveryUpdate = Pick<Delivery, 'id' | 'claimed_by' | 'state' | 'attempts' | 'next_attempt_at' | 'expires_at' | 'last_mx' | 'last_ip' | 'last_tls' | 'last_response' | 'updated_at'>

// Prepared: it runs for every attempt.
const updateDelivery = prepared((db, p: DeliveryUpdate) =>
  db
    .updateTable('deliveries')
    .set({
      state: p.state,
      attempts: p.attempts,
      next_attempt_at: p.next_attempt_at,
      expires_at: p.expires_at,
      last_mx: p.last_mx,
      last_ip: p.last_ip,
      last_tls: p.last_tls,
      last_response: p.last_response,
      updated_at: p.updated_at,
      ...UNCLAIMED,
    })
    .where('id', '=', p.id)
    .where('claimed_by', '=', p.claimed_by)
    .returning('id'),
)

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
    ...(outcome.kind === 'failed' && { reason: outcome.reason }),
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
  await countOutcome(db, delivery, outcome, now)
  if (outcome.kind === 'bounced' && outcome.hard) {
    await suppressRecipient(db, delivery.project_id, delivery.recipient, 'hard_bounce', data.response?.slice(0, 500) ?? outcome.category, now)
  }
}
