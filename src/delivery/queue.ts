import { sql, type Selectable } from 'kysely'
import { addEmailEvent } from '../core/emails/emails.repository.ts'
import { countOutcome } from '../core/guardrails/counters.ts'
import { suppressRecipient } from '../core/suppressions/suppressions.service.ts'
import type { Db, DeliveryTable, EmailStatus } from '../db/schema.ts'

export type Delivery = Selectable<DeliveryTable>

/** Deliveries left `sending` by a process that died: they go back to the queue, never lost. */
export const releaseInFlight = (db: Db, now: number) =>
  db.updateTable('deliveries').set({ state: 'queued', next_attempt_at: now, updated_at: now }).where('state', '=', 'sending').execute()

/** Waiting deliveries, written as the partial index `deliveries_waiting` is, so SQLite uses it. */
export const WAITING = sql<boolean>`state IN ('queued', 'deferred', 'scheduled')`

/** How many of the oldest due rows one claim looks at. */
const CLAIM_WINDOW = 2000

/**
 * Claims up to `limit` due deliveries in one statement: the oldest first, at most `perDomain` for
 * any one destination domain (so one domain's backlog cannot take every free slot), skipping
 * destination domains and projects that are at their limits. Claimed rows are `sending` and count
 * an attempt.
 */
export async function claimDue(
  db: Db,
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
  return db
    .updateTable('deliveries')
    .set({ state: 'sending', attempts: sql`attempts + 1`, updated_at: now })
    .where('id', 'in', picked)
    .returningAll()
    .execute()
}

/** What an attempt recorded, for the email's events: {recipient, mx, smtpCode, enhancedCode, response, attempt}. */
export interface AttemptData {
  mx?: string
  smtpCode?: number
  enhancedCode?: string
  response?: string
  /** When the attempt began: the time of the SENT event of a first attempt. */
  startedAt: number
}

export type Settlement =
  | { kind: 'delivered'; data: AttemptData }
  | { kind: 'deferred'; data: AttemptData; nextAttemptAt: number; category: string }
  | { kind: 'bounced'; data: AttemptData; category: string; hard: boolean }
  | { kind: 'failed'; data: AttemptData; reason: string }
  | { kind: 'suppressed'; data: AttemptData }

const STATE = { delivered: 'delivered', deferred: 'deferred', bounced: 'bounced', failed: 'failed', suppressed: 'suppressed' } as const
const STATUS: Record<Settlement['kind'], EmailStatus> = {
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
  const { data } = outcome
  const eventData = {
    recipient: delivery.recipient,
    ...(data.mx && { mx: data.mx }),
    ...(data.smtpCode !== undefined && { smtpCode: data.smtpCode }),
    ...(data.enhancedCode && { enhancedCode: data.enhancedCode }),
    ...(data.response && { response: data.response.slice(0, 1000) }),
    attempt: delivery.attempts,
    ...(outcome.kind === 'deferred' && { category: outcome.category, nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString() }),
    ...(outcome.kind === 'bounced' && { category: outcome.category, hard: outcome.hard }),
    ...(outcome.kind === 'failed' && { reason: outcome.reason }),
  }
  await db
    .updateTable('deliveries')
    .set({
      state: STATE[outcome.kind],
      next_attempt_at: outcome.kind === 'deferred' ? outcome.nextAttemptAt : delivery.next_attempt_at,
      last_mx: data.mx ?? delivery.last_mx,
      last_response: data.response?.slice(0, 1000) ?? delivery.last_response,
      updated_at: now,
    })
    .where('id', '=', delivery.id)
    .execute()
  // SENT marks the first attempt that reached a server; earlier ones may have reached none.
  if (data.mx && delivery.last_mx === null && outcome.kind !== 'suppressed') {
    await addEmailEvent(db, delivery.email_id, 'SENT', { recipient: delivery.recipient, mx: data.mx, attempt: delivery.attempts }, data.startedAt)
  }
  await addEmailEvent(db, delivery.email_id, STATUS[outcome.kind], eventData, now)
  await countOutcome(db, delivery, outcome, now)
  if (outcome.kind === 'bounced' && outcome.hard) {
    await suppressRecipient(db, delivery.project_id, delivery.recipient, 'hard_bounce', data.response?.slice(0, 500) ?? outcome.category, now)
  }
}
