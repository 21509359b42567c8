import type { Selectable } from 'kysely'
import type { Db, DeliveryTable } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
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

/** The delivery of the email with this Message-ID to this recipient (or its only one). */
export async function findDeliveryByMessageId(db: Db, messageId: string, recipients: readonly string[]): Promise<DeliveryRow | undefined> {
  const deliveries = await db
    .selectFrom('deliveries')
    .innerJoin('emails', 'emails.id', 'deliveries.email_id')
    .selectAll('deliveries')
    .where('emails.message_id', '=', messageId)
    .execute()
  const keys = new Set(recipients.map(keyOf))
  return deliveries.find((d) => keys.has(keyOf(d.recipient))) ?? (deliveries.length === 1 ? deliveries[0] : undefined)
}

const keyOf = (address: string) => {
  const checked = checkAddress(address.trim())
  return checked.ok ? checked.value.key : address.trim().toLowerCase()
}

/** True the first time a fingerprint is seen: what makes applying a report idempotent. */
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
