import type { Selectable } from 'kysely'
import addressparser from 'nodemailer/lib/addressparser'
import type { Db, DeliveryTable } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
import { domainRows } from '../domains/domain-queries.ts'
import { returnPathHost } from '../domains/records.ts'
import { SANDBOX_HOST } from '../projects/sandbox-host.ts'
import { deliveryRows, findDelivery, markBounced } from '../queue/index.ts'
import { recipientRejected } from '../reactions.ts'
import { addEmailEvent, addEmailEvents } from './email-events.ts'

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
    .innerJoin(domainRows(db).as('domains'), 'domains.id', 'emails.domain_id')
    .select(['domains.name', 'domains.return_path_label'])
    .where('emails.id', '=', delivery.email_id)
    .executeTakeFirst()
  // Sandbox mail has no sending domain: its return paths are at the sandbox's own host.
  return { delivery, returnPathHost: domain ? returnPathHost(domain) : delivery.sandbox === 1 ? SANDBOX_HOST : null }
}

/** At most this many deliveries of one Message-ID are looked at: a client reusing one without end makes it name nothing. */
const MESSAGE_DELIVERIES = 1000

/**
 * The deliveries of the emails with this Message-ID sent from this domain, newest first. A
 * Message-ID alone proves nothing (every recipient saw it) and is not even one email's: the relay
 * keeps the one its client gave, so another project can send its own mail under the same one.
 * The domain of the original's From keeps that mail apart (only the project that verified a
 * domain sends from it). Only a report from a trusted feedback loop names a delivery this way.
 */
export async function deliveriesOfMessage(db: Db, messageId: string, fromDomain: string): Promise<DeliveryRow[]> {
  const rows = await db
    .selectFrom(deliveryRows(db).as('deliveries'))
    .innerJoin('emails', 'emails.id', 'deliveries.email_id')
    .selectAll('deliveries')
    .select('emails.from_address')
    .where('emails.message_id', '=', messageId)
    .orderBy('deliveries.id', 'desc')
    .limit(MESSAGE_DELIVERIES)
    .execute()
  return rows.filter((row) => fromDomainOf(row.from_address) === fromDomain).map(({ from_address: _, ...delivery }) => delivery)
}

/** The ASCII domain of an email's (first) From address, as the relay or the API wrote it ("Ada <ada@example.com>"). */
function fromDomainOf(from: string): string | null {
  const address = addressparser(from, { flatten: true }).find((a) => a.address)?.address
  const checked = address ? checkAddress(address) : undefined
  return checked?.ok ? checked.value.asciiDomain : null
}

/** What addresses are compared by: lower-cased local part @ ASCII domain (lower case when not an address we would send to). */
export const addressKey = (address: string) => {
  const checked = checkAddress(address.trim())
  return checked.ok ? checked.value.key : address.trim().toLowerCase()
}

/**
 * A bounce that came back after the fact: the delivery failed; a hard one suppresses the address.
 * The sending counters count the recipient's bounce once, unless an attempt or a report already
 * bounced it, and a hard one once, unless one was already hard (a soft one before it, at an
 * attempt or in a report, was not).
 */
export async function applyBounce(db: Db, delivery: DeliveryRow, facts: ReportFacts, hard: boolean, now: number) {
  const before = await recipientEvents(db, delivery, 'BOUNCED')
  const counts = { reportedBounced: before.length === 0 ? 1 : 0, hardBounced: hard && !before.some((data) => data.hard === true) ? 1 : 0 }
  await markBounced(db, delivery.id, facts.diagnostic ?? facts.status ?? null, now)
  await addEmailEvents(db, delivery.email_id, [{ status: 'BOUNCED', data: { recipient: delivery.recipient, hard, ...facts }, at: now, counts }])
  if (hard) await recipientRejected(db, delivery.project_id, delivery.recipient, 'hard_bounce', facts.diagnostic ?? facts.status ?? null, now)
}

/** A server on the way reported a delay; the delivery itself is unchanged. */
export async function applyDelay(db: Db, delivery: DeliveryRow, facts: ReportFacts, now: number) {
  await addEmailEvent(db, delivery.email_id, 'DELIVERY_DELAYED', { recipient: delivery.recipient, ...facts }, now)
}

/**
 * The recipient reported the email as abuse (or fraud, virus, ...); the sending counters count it
 * once per recipient: a second report is not a second complaint.
 */
export async function applyComplaint(db: Db, delivery: DeliveryRow, facts: ReportFacts, now: number) {
  const counts = { complained: (await recipientEvents(db, delivery, 'COMPLAINED')).length === 0 ? 1 : 0 }
  await addEmailEvents(db, delivery.email_id, [{ status: 'COMPLAINED', data: { recipient: delivery.recipient, ...facts }, at: now, counts }])
  await recipientRejected(db, delivery.project_id, delivery.recipient, 'complaint', facts.feedbackType ?? null, now)
}

/** The data of the email's events of this status about the delivery's recipient, at an attempt or in a report. */
async function recipientEvents(db: Db, delivery: DeliveryRow, status: 'COMPLAINED' | 'BOUNCED'): Promise<Array<{ hard?: unknown }>> {
  const events = await db.selectFrom('email_events').select('data').where('email_id', '=', delivery.email_id).where('status', '=', status).execute()
  return events
    .map((event) => (event.data === null ? null : (JSON.parse(event.data) as { recipient?: string; hard?: unknown })))
    .filter((data): data is { recipient?: string; hard?: unknown } => data?.recipient === delivery.recipient)
}
