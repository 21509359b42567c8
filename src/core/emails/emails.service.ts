import type { Db, EmailEventTable, EmailStatus, EmailTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { AppError, invalid, notFound } from '../../lib/errors.ts'
import { addEmailEvent } from './email-events.ts'
import { deliveriesOf, setDeliveriesOf } from '../queue/index.ts'
import { getDomain } from '../domains/domains.service.ts'
import { countEmails, dkimHeaderOf, emailEvents, emailPage, findEmail, rawMessageOf, sandboxSendersInFlight, type EmailFilter } from './emails.repository.ts'
import { deliveryDetail } from './delivery-detail.ts'

type EmailSummary = Omit<EmailTable, 'dkim_header'> & { html: string | null; text: string | null }

/** The Email of the interface, with its events in time order. */
export function toEmail(row: EmailSummary, events: Omit<EmailEventTable, 'id'>[]) {
  const recipients = JSON.parse(row.recipients) as { to: string[]; cc: string[]; bcc: string[]; replyTo: string[] }
  return {
    id: row.id,
    teamId: row.project_id,
    to: recipients.to,
    from: row.from_address,
    subject: row.subject,
    html: row.html,
    text: row.text,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    emailEvents: events.map((e) => ({
      emailId: e.email_id,
      status: e.status,
      createdAt: isoTime(e.created_at),
      data: e.data === null ? null : JSON.parse(e.data),
    })),
    replyTo: recipients.replyTo,
    cc: recipients.cc,
    bcc: recipients.bcc,
    status: row.status,
    latestStatus: row.status,
    domainId: row.domain_id,
    messageId: row.message_id,
    scheduledAt: row.scheduled_at === null ? null : isoTime(row.scheduled_at),
  }
}

/** An email with its events, and how it went for each recipient. */
export async function getEmail(db: Db, projectId: number, id: string) {
  const row = await findEmail(db, projectId, id)
  if (!row) throw notFound('Email')
  const [events, deliveries, signature] = await Promise.all([emailEvents(db, id), deliveriesOf(db, id), dkimHeaderOf(db, id)])
  return { ...toEmail(row, events), deliveries: deliveries.map((delivery) => deliveryDetail(delivery, signature)) }
}

/**
 * The message as its recipients got it: the DKIM signature made at the first attempt (none before
 * it), then the message as built. Gone once retention deleted the body.
 */
export async function getRawMessage(db: Db, projectId: number, id: string): Promise<Uint8Array> {
  if (!(await findEmail(db, projectId, id))) throw notFound('Email')
  const raw = await rawMessageOf(db, id)
  if (!raw) throw new AppError(410, 'GONE', "The email's message was deleted by retention (MAILSTEAD_RETENTION_DAYS)")
  return raw.dkim_header ? Buffer.concat([Buffer.from(raw.dkim_header), raw.mime]) : raw.mime
}

/** What a list of emails asks for: a page, and optionally a time range (ms, both ends included), sending domains, the latest status and parts of the recipients, sender and subject. */
export interface EmailListQuery {
  page: number
  limit: number
  startDate?: number
  endDate?: number
  domainIds?: readonly number[]
  status?: EmailStatus
  recipient?: string
  sender?: string
  subject?: string
}

/** Domains one list may name: more is not a filter but a scan. */
export const MAX_LIST_DOMAINS = 50

/**
 * A page of the project's emails, newest first, without their events, and how many the filters
 * keep. A domain that is not the project's is a 404, as everywhere.
 */
export async function listEmails(db: Db, projectId: number, query: EmailListQuery) {
  const { startDate, endDate, domainIds } = query
  if (startDate !== undefined && endDate !== undefined && endDate < startDate) throw invalid('endDate', 'must not be before startDate')
  const domains = domainIds && [...new Set(domainIds)]
  if (domains && domains.length > MAX_LIST_DOMAINS) throw invalid('domainId', `names at most ${MAX_LIST_DOMAINS} domains`)
  for (const id of domains ?? []) await getDomain(db, projectId, id)
  const { status, recipient, sender, subject } = query
  const filter: EmailFilter = { projectId, from: startDate, to: endDate, domainIds: domains, status, recipient, sender, subject }
  const [rows, count] = await Promise.all([emailPage(db, filter, query.page, query.limit).execute(), countEmails(db, filter)])
  return {
    data: rows.map((row) => {
      const { emailEvents: _, ...summary } = toEmail(row, [])
      return summary
    }),
    count,
  }
}

async function requireScheduled(db: Db, projectId: number, id: string) {
  const row = await findEmail(db, projectId, id)
  if (!row) throw notFound('Email')
  if (row.status !== 'SCHEDULED') {
    throw new AppError(400, 'NOT_SCHEDULED', `The email is ${row.status}; only a scheduled email can be changed or cancelled`)
  }
  const pending = (await deliveriesOf(db, id)).filter((d) => d.state === 'scheduled')
  if (pending.length === 0) throw new AppError(400, 'NOT_SCHEDULED', 'The email is already being sent')
  return row
}

export async function reschedule(db: Db, projectId: number, id: string, at: number, maxAgeMs: number, now: number) {
  if (at < now - 60_000) throw invalid('scheduledAt', 'must not be in the past')
  await requireScheduled(db, projectId, id)
  await setDeliveriesOf(db, id, 'scheduled', { next_attempt_at: at, expires_at: at + maxAgeMs }, now)
  await db.updateTable('emails').set({ scheduled_at: at, updated_at: now }).where('id', '=', id).execute()
  await addEmailEvent(db, id, 'SCHEDULED', { scheduledAt: isoTime(at) }, now)
  return { emailId: id }
}

export async function cancel(db: Db, projectId: number, id: string, now: number) {
  await requireScheduled(db, projectId, id)
  await setDeliveriesOf(db, id, 'scheduled', { state: 'cancelled' }, now)
  await addEmailEvent(db, id, 'CANCELLED', null, now)
  return { emailId: id }
}

/** The From addresses of the project's sandbox mail not yet settled: what switching its sandbox off waits on. */
export const unsettledSandboxSenders = (db: Db, projectId: number) => sandboxSendersInFlight(db, projectId)
