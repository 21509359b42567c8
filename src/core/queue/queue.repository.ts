import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import { textsIn } from '../../db/lists.ts'
import { claim, UNCLAIMED, type Claimant } from '../../db/claims.ts'
import { prepared } from '../../db/prepared.ts'
import { rowsWait } from '../../db/writer.ts'
import type { Db, DeliveryState, DeliveryTable } from '../../db/schema.ts'
import { isProjectDisabled } from '../projects/index.ts'

/*
 * The statements of the `deliveries` table: every one that inserts, updates or deletes its rows
 * is here, whoever makes the change (a send, a campaign, the delivery loop, a report, the queue's
 * admin, a project disabled). Other modules reach them through the queue's surface (index.ts).
 * The generic claim mechanism shared by every work table (renewing, taking over, giving back) is
 * src/db/claims.ts.
 *
 * A statement that makes deliveries due now says so (`rowsWait`), whoever runs it: once its
 * transaction committed, the writer wakes the delivery loop, which need not wait for its poll.
 */

export type DeliveryRow = Selectable<DeliveryTable>
type Delivery = DeliveryRow

/** Waiting deliveries, written as the partial index `deliveries_waiting` is, so SQLite uses it. */
export const WAITING = sql<boolean>`state IN ('queued', 'deferred', 'scheduled')`

export type NewDelivery = Omit<Insertable<DeliveryTable>, 'id' | 'attempts' | 'last_mx' | 'last_response'>

export async function insertDeliveries(db: Db, rows: NewDelivery[]) {
  for (const row of rows) await insertDelivery(db, { ...row, sandbox: row.sandbox ?? 0 })
  dueNow(db, rows)
}

/** The projects of the rows queued for an attempt now (not scheduled, not suppressed) have mail waiting. */
function dueNow(db: Db, rows: readonly Pick<NewDelivery, 'project_id' | 'state'>[]) {
  for (const projectId of new Set(rows.filter((row) => row.state === 'queued').map((row) => row.project_id))) rowsWait(db, 'deliveries', projectId)
}

// Prepared: it runs for every recipient of every email accepted.
const insertDelivery = prepared((db, p: NewDelivery) =>
  db.insertInto('deliveries').values({
    email_id: p.email_id,
    project_id: p.project_id,
    recipient: p.recipient,
    recipient_domain: p.recipient_domain,
    state: p.state,
    next_attempt_at: p.next_attempt_at,
    expires_at: p.expires_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
    sandbox: p.sandbox,
  }),
)

const DELIVERY_COLUMNS = ['email_id', 'project_id', 'recipient', 'recipient_domain', 'state', 'sandbox', 'next_attempt_at', 'expires_at', 'created_at', 'updated_at'] as const

/** Many deliveries (a campaign's queued emails'), a few statements however many there are. */
export async function insertManyDeliveries(db: Db, rows: readonly NewDelivery[]) {
  await insertMany(db, 'deliveries', DELIVERY_COLUMNS, rows)
  dueNow(db, rows)
}

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

export type DeliveryUpdate = Pick<Delivery, 'id' | 'claimed_by' | 'state' | 'attempts' | 'next_attempt_at' | 'expires_at' | 'last_mx' | 'last_ip' | 'last_tls' | 'last_response' | 'updated_at'>

/**
 * An attempt's outcome on its delivery, the claim cleared; written only while `claimed_by` still
 * holds it. Answers the row's id, or nothing when another process holds it now. Prepared: it
 * runs for every attempt.
 */
export const updateDelivery = prepared((db, p: DeliveryUpdate) =>
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

/**
 * Why a disabled project's mail waits. It is also what tells the deliveries a disabled project
 * holds from those of a paused campaign: both are `paused`, and enabling the project releases
 * only its own.
 */
export const PROJECT_DISABLED_HOLD = 'Held: the project is disabled; it is sent once the project is enabled again'

// Spelled as the partial indexes are (deliveries_waiting, deliveries_paused), so SQLite uses them.
const WAITING_FOR_ATTEMPT = sql<boolean>`state IN ('queued', 'deferred', 'scheduled') AND state IN ('queued', 'deferred')`
const PAUSED = sql<boolean>`state = 'paused'`

/**
 * Holds the project's mail that waits for an attempt: `paused`, out of the delivery loop's sight,
 * with the reason as its last response. Scheduled mail stays scheduled (it can still be
 * cancelled); if its time comes while the project is disabled, its attempt holds it.
 */
export const holdProjectMail = (db: Db, projectId: number, now: number) =>
  db
    .updateTable('deliveries')
    .set({ state: 'paused', last_response: PROJECT_DISABLED_HOLD, updated_at: now })
    .where(WAITING_FOR_ATTEMPT)
    .where('project_id', '=', projectId)
    .execute()

/**
 * Sends the project's held mail on: queued again, its expiry moved on by the time it was held,
 * so that a project disabled for longer than mail is retried bounces none of it.
 */
export async function releaseProjectMail(db: Db, projectId: number, now: number) {
  const released = await db
    .updateTable('deliveries')
    .set((eb) => ({
      state: 'queued',
      expires_at: eb('expires_at', '+', eb(eb.val(now), '-', eb.ref('updated_at'))),
      last_response: null,
      updated_at: now,
    }))
    .where(PAUSED)
    .where('project_id', '=', projectId)
    .where('last_response', '=', PROJECT_DISABLED_HOLD)
    .executeTakeFirst()
  if (released.numUpdatedRows > 0n) rowsWait(db, 'deliveries', projectId)
}

/**
 * A claimed delivery whose project turned out to be disabled when its attempt began: held with
 * the others, its attempt not counted. Should the project have been enabled since, it goes back
 * to the queue instead, so that nothing is left held with no one to release it.
 */
export async function holdClaimedDelivery(db: Db, delivery: { id: number; project_id: number; claimed_by: string | null }, now: number) {
  const held = await isProjectDisabled(db, delivery.project_id)
  const moved = await db
    .updateTable('deliveries')
    .set((eb) => ({
      state: held ? 'paused' : 'queued',
      attempts: eb('attempts', '-', 1),
      last_response: held ? PROJECT_DISABLED_HOLD : eb.ref('last_response'),
      ...(!held && { next_attempt_at: now }),
      updated_at: now,
      ...UNCLAIMED,
    }))
    .where('id', '=', delivery.id)
    .where('claimed_by', '=', delivery.claimed_by)
    .executeTakeFirst()
  if (!held && moved.numUpdatedRows > 0n) rowsWait(db, 'deliveries', delivery.project_id)
}

/** Changes the email's deliveries that are in `from`: a scheduled email moved (perhaps to now) or cancelled. */
export async function setDeliveriesOf(db: Db, emailId: string, from: DeliveryState, changes: { state?: DeliveryState; next_attempt_at?: number; expires_at?: number }, now: number) {
  const changed = await db.updateTable('deliveries').set({ ...changes, updated_at: now }).where('email_id', '=', emailId).where('state', '=', from).returning('project_id').execute()
  const state = changes.state ?? from
  const waiting = state === 'queued' || state === 'deferred' || state === 'scheduled'
  if (waiting && changes.next_attempt_at !== undefined && changes.next_attempt_at <= now && changed.length > 0) rowsWait(db, 'deliveries', changed[0]!.project_id)
}

/**
 * The emails of one campaign, as a condition on a column of email ids (such as
 * 'deliveries.email_id') that its module writes: sentForCampaign of src/core/campaigns.
 */
export type CampaignEmails = (emailId: string) => RawBuilder<boolean>

/**
 * The campaign's deliveries in `from`, found through partial indexes (the waiting ones, or the
 * paused ones), never by walking all its recipients: a pause or a round of the sender costs what
 * is in the queue, not what the campaign has sent.
 */
export function campaignDeliveries(ofCampaign: CampaignEmails, from: 'queued' | 'paused') {
  const indexed = from === 'queued' ? sql`state IN ('queued', 'deferred', 'scheduled') AND state = 'queued'` : sql`state = 'paused'`
  return sql<boolean>`${indexed} AND ${ofCampaign('deliveries.email_id')}`
}

/**
 * Moves the campaign's deliveries from one state to another and says which emails they belong
 * to: holding them on pause, releasing them on resume, cancelling them.
 */
export async function moveCampaignDeliveries(
  db: Db,
  ofCampaign: CampaignEmails,
  from: 'queued' | 'paused',
  to: DeliveryState,
  changes: { next_attempt_at?: number; expires_at?: number },
  now: number,
) {
  const moved = await db
    .updateTable('deliveries')
    .set({ state: to, ...changes, updated_at: now })
    .where(campaignDeliveries(ofCampaign, from))
    .returning(['email_id', 'recipient', 'project_id'])
    .execute()
  if (to === 'queued' && moved.length > 0) rowsWait(db, 'deliveries', moved[0]!.project_id)
  return moved
}

/** Which deliveries an operator's action reaches: a project's (the HTTP API), or every project's (the CLI); one destination domain's, or all. */
export interface QueueScope {
  projectId?: number
  domain?: string
}

const inScope = <Q extends { where: (...args: any[]) => Q }>(query: Q, scope: QueueScope): Q => {
  let scoped = scope.projectId === undefined ? query : query.where('project_id', '=', scope.projectId)
  if (scope.domain !== undefined) scoped = scoped.where('recipient_domain', '=', scope.domain.toLowerCase())
  return scoped
}

/** Queues again, due now, one deferred or failed delivery, or every deferred one in scope. */
export async function requeueDeliveries(db: Db, target: number | 'all-deferred', now: number, scope: QueueScope = {}) {
  const query = inScope(db.updateTable('deliveries').set({ state: 'queued', next_attempt_at: now, updated_at: now }), scope)
  const result = await (target === 'all-deferred' ? query.where('state', '=', 'deferred') : query.where('id', '=', target).where('state', 'in', ['deferred', 'failed'])).executeTakeFirst()
  if (result.numUpdatedRows > 0n) rowsWait(db, 'deliveries', scope.projectId)
  return result
}

/** Cancels a delivery that has not left yet: its email and recipient, or nothing when it is in no state to be cancelled. */
export const cancelWaitingDelivery = (db: Db, id: number, now: number, scope: QueueScope = {}) =>
  inScope(db.updateTable('deliveries').set({ state: 'cancelled', updated_at: now }), scope)
    .where('id', '=', id)
    .where('state', 'in', ['scheduled', 'queued', 'deferred'])
    .returning(['email_id', 'recipient'])
    .executeTakeFirst()

/**
 * Deliveries in scope by state (those in `counted`, or all), and the pending ones (`pending`) by
 * destination domain, most first.
 */
export async function countQueue(db: Db, scope: QueueScope, pending: readonly DeliveryState[], counted: readonly DeliveryState[] | undefined, domains: number) {
  let states = inScope(db.selectFrom('deliveries'), scope)
  if (counted) states = states.where('state', 'in', counted)
  const byState = await states.select(['state', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('state').execute()
  const byDomain = await inScope(db.selectFrom('deliveries'), scope)
    .select(['recipient_domain as domain', (eb) => eb.fn.countAll<number>().as('count')])
    .where('state', 'in', pending)
    .groupBy('recipient_domain')
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('recipient_domain')
    .limit(domains)
    .execute()
  return { byState, byDomain }
}

/** Deliveries in scope in `states`, soonest first, after the (next attempt, id) of the previous page's last. */
export function listDeliveries(db: Db, states: readonly DeliveryState[], scope: QueueScope, limit: number, after?: { at: number; id: number }) {
  let query = inScope(db.selectFrom('deliveries').selectAll(), scope).where('state', 'in', states)
  if (after) query = query.where((eb) => eb.or([eb('next_attempt_at', '>', after.at), eb.and([eb('next_attempt_at', '=', after.at), eb('id', '>', after.id)])]))
  return query.orderBy('next_attempt_at').orderBy('id').limit(limit).execute()
}

/** The delivery's state and email, if it is in scope. */
export const findDeliveryIn = (db: Db, id: number, scope: QueueScope) =>
  inScope(db.selectFrom('deliveries').select(['id', 'state', 'email_id']), scope).where('id', '=', id).executeTakeFirst()

/** A delivery a report says bounced after the fact, with what the report said as its last response. */
export const markBounced = (db: Db, id: number, lastResponse: string | null, now: number) =>
  db.updateTable('deliveries').set({ state: 'bounced', last_response: lastResponse, updated_at: now }).where('id', '=', id).execute()

/** Deletes every delivery of these emails, whatever its state (an erasure of their recipient); answers how many. */
export async function deleteDeliveriesOf(db: Db, emailIds: readonly string[]): Promise<number> {
  if (emailIds.length === 0) return 0
  const result = await db.deleteFrom('deliveries').where('email_id', 'in', textsIn(db, emailIds)).executeTakeFirst()
  return Number(result.numDeletedRows)
}
