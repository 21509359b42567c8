import type { Selectable } from 'kysely'
import type { Db, DeliveryTable } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
import { returnPathHost } from '../domains/records.ts'
import { countFeedback } from '../guardrails/counters.ts'
import { suppressRecipient } from '../suppressions/suppressions.service.ts'
import { addEmailEvent } from './emails.repository.ts'

export type DeliveryRow = Selectable<DeliveryTable>

/** What a report said about one delivery: kept in the event's data. */
export interface ReportFacts {
  action?: string
  status?: string | null
  diagnostic?: string | null
  reportingMta?: string | null
  remoteMta?: string | null
  feedbackType?: string
  category?: string
  /** dsn, plain or arf: what kind of report said it. */
  source?: string
}

export const findDelivery = (db: Db, id: number) => db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst()

/** A delivery a report names, with what proves a report is about it. */
export interface ReportedDelivery {
  delivery: DeliveryRow
  /** The return-path host its mail went out with (bounces+<token>@<host>); null when its sending domain is gone. */
  returnPathHost: string | null
}

/** The delivery with this id and its sending domain's return-path host. */
export async function findReportedDelivery(db: Db, id: number): Promise<ReportedDelivery | undefined> {
  const delivery = await findDelivery(db, id)
  if (!delivery) return undefined
  const domain = await db
    .selectFrom('emails')
    .innerJoin('domains', 'domains.id', 'emails.domain_id')
    .select(['domains.name', 'domains.return_path_label'])
    .where('emails.id', '=', delivery.email_id)
    .executeTakeFirst()
  return { delivery, returnPathHost: domain ? returnPathHost(domain) : null }
}

/**
 * The deliveries to `recipient` of the emails with this Message-ID. A Message-ID alone proves
 * nothing (every recipient saw it, and a relayed message may reuse one): only a report from a
 * trusted feedback loop may name a delivery this way.
 */
export async function deliveriesTo(db: Db, messageId: string, recipient: string): Promise<ReportedDelivery[]> {
  const deliveries = await db
    .selectFrom('deliveries')
    .innerJoin('emails', 'emails.id', 'deliveries.email_id')
    .select(['deliveries.id', 'deliveries.recipient'])
    .where('emails.message_id', '=', messageId)
    .execute()
  const key = addressKey(recipient)
  const found = await Promise.all(deliveries.filter((d) => addressKey(d.recipient) === key).map((d) => findReportedDelivery(db, d.id)))
  return found.filter((d): d is ReportedDelivery => d !== undefined)
}

/** What addresses are compared by: lower-cased local part @ ASCII domain (lower case when not an address we would send to). */
export const addressKey = (address: string) => {
  const checked = checkAddress(address.trim())
  return checked.ok ? checked.value.key : address.trim().toLowerCase()
}

/**
 * True the first time a fingerprint is seen: what makes applying a report idempotent. The
 * fingerprint is what the report is about (delivery, effect, status), not the report's own
 * Message-ID, so the same bounce sent again under a new one is applied once.
 */
export async function firstSighting(db: Db, fingerprint: string, now: number): Promise<boolean> {
  const result = await db
    .insertInto('inbound_reports')
    .values({ fingerprint, created_at: now })
    .onConflict((oc) => oc.column('fingerprint').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/**
 * A bounce that came back after the fact: the delivery failed; a hard one suppresses the address,
 * and counts for the guardrails unless its attempt already counted it as a hard bounce.
 */
export async function applyBounce(db: Db, delivery: DeliveryRow, facts: ReportFacts, hard: boolean, now: number) {
  if (hard && delivery.state !== 'bounced') await countFeedback(db, delivery, 'hard_bounce', now)
  await db.updateTable('deliveries').set({ state: 'bounced', last_response: facts.diagnostic ?? facts.status ?? null, updated_at: now }).where('id', '=', delivery.id).execute()
  await addEmailEvent(db, delivery.email_id, 'BOUNCED', { recipient: delivery.recipient, hard, ...facts }, now)
  if (hard) await suppressRecipient(db, delivery.project_id, delivery.recipient, 'hard_bounce', facts.diagnostic ?? facts.status ?? null, now)
}

/** A server on the way reported a delay; the delivery itself is unchanged. */
export async function applyDelay(db: Db, delivery: DeliveryRow, facts: ReportFacts, now: number) {
  await addEmailEvent(db, delivery.email_id, 'DELIVERY_DELAYED', { recipient: delivery.recipient, ...facts }, now)
}

/** The recipient reported the email as abuse (or fraud, virus, ...); the guardrails count it once per recipient. */
export async function applyComplaint(db: Db, delivery: DeliveryRow, facts: ReportFacts, now: number) {
  if (!(await hasComplained(db, delivery))) await countFeedback(db, delivery, 'complaint', now)
  await addEmailEvent(db, delivery.email_id, 'COMPLAINED', { recipient: delivery.recipient, ...facts }, now)
  await suppressRecipient(db, delivery.project_id, delivery.recipient, 'complaint', facts.feedbackType ?? null, now)
}

/** Whether the recipient already complained about this email: a second report is not a second complaint. */
async function hasComplained(db: Db, delivery: DeliveryRow): Promise<boolean> {
  const events = await db.selectFrom('email_events').select('data').where('email_id', '=', delivery.email_id).where('status', '=', 'COMPLAINED').execute()
  return events.some((event) => event.data !== null && (JSON.parse(event.data) as { recipient?: string }).recipient === delivery.recipient)
}
