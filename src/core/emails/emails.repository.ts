import { sql } from 'kysely'
import { insertMany, updateMany } from '../../db/bulk.ts'
import { likeIgnoringCase, likePattern } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import type { Db, EmailContentTable, EmailStatus, EmailTable } from '../../db/schema.ts'
import { prepared } from '../../db/prepared.ts'
import type { Tally } from '../analytics/counters.ts'
import { deliveryRows, insertManyDeliveries, type NewDelivery } from '../queue/index.ts'

export async function insertEmail(db: Db, row: EmailTable, content: EmailContentTable) {
  await insertEmailRow(db, row)
  await insertContent(db, content)
}

// Prepared: these run for every email accepted, and building them is dearer than running them.
const insertEmailRow = prepared((db, p: EmailTable) =>
  db.insertInto('emails').values({
    id: p.id,
    project_id: p.project_id,
    domain_id: p.domain_id,
    contact_id: p.contact_id,
    from_address: p.from_address,
    recipients: p.recipients,
    subject: p.subject,
    message_id: p.message_id,
    dkim_header: p.dkim_header,
    status: p.status,
    scheduled_at: p.scheduled_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
  }),
)

const insertContent = prepared((db, p: EmailContentTable) =>
  db.insertInto('email_contents').values({ email_id: p.email_id, html: p.html, text: p.text, mime: p.mime }),
)

/** Stores an email's built message unless one is already there; answers the one that is. */
export async function keepContent(db: Db, content: EmailContentTable): Promise<Uint8Array> {
  await db.insertInto('email_contents').values(content).onConflict((oc) => oc.column('email_id').doNothing()).execute()
  const row = await db.selectFrom('email_contents').select('mime').where('email_id', '=', content.email_id).executeTakeFirstOrThrow()
  return row.mime
}

export interface NewEmailEvent {
  status: EmailStatus
  data: Record<string, unknown> | null
  at: number
  /** What it adds to the sending counters, when its status alone does not say (a report's outcome); not stored. */
  counts?: Tally
}

/** Records an email's events in order; the last one's status becomes the email's. */
export async function insertEmailEvents(db: Db, emailId: string, events: readonly NewEmailEvent[]) {
  for (const { status, data, at } of events) await insertEvent(db, { emailId, status, data: data === null ? null : JSON.stringify(data), at })
  const last = events.at(-1)!
  await setStatus(db, { emailId, status: last.status, at: last.at })
}

/** The same event, without data, for each of many emails, and its status theirs. */
export async function insertEventForEach(db: Db, emailIds: readonly string[], status: EmailStatus, at: number) {
  await insertMany(db, 'email_events', ['email_id', 'status', 'created_at'], emailIds.map((email_id) => ({ email_id, status, created_at: at })))
  await updateMany(db, 'emails', ['id'], ['status', 'updated_at'], emailIds.map((id) => ({ id, status, updated_at: at })))
}

/** An email as many are written at once: a campaign's, whose bodies are built at its first attempt. */
export type QueuedEmail = Pick<EmailTable, 'id' | 'project_id' | 'domain_id' | 'contact_id' | 'from_address' | 'recipients' | 'subject' | 'message_id' | 'created_at' | 'updated_at'> & {
  status: 'QUEUED'
}

const QUEUED_EMAIL_COLUMNS = ['id', 'project_id', 'domain_id', 'contact_id', 'from_address', 'recipients', 'subject', 'message_id', 'status', 'created_at', 'updated_at'] as const

/** Many queued emails with their deliveries and QUEUED events, a few statements however many there are. */
export async function insertQueuedEmails(db: Db, emails: readonly QueuedEmail[], deliveries: readonly NewDelivery[], at: number) {
  await insertMany(db, 'emails', QUEUED_EMAIL_COLUMNS, emails)
  await insertManyDeliveries(db, deliveries)
  await insertMany(db, 'email_events', ['email_id', 'status', 'created_at'], emails.map((e) => ({ email_id: e.id, status: 'QUEUED', created_at: at })))
}

const insertEvent = prepared((db, p: { emailId: string; status: EmailStatus; data: string | null; at: number }) =>
  db.insertInto('email_events').values({ email_id: p.emailId, status: p.status, data: p.data, created_at: p.at }),
)

const setStatus = prepared((db, p: { emailId: string; status: EmailStatus; at: number }) =>
  db.updateTable('emails').set({ status: p.status, updated_at: p.at }).where('id', '=', p.emailId),
)

/** The email with its bodies (not its built message); a campaign email's are null until its first attempt. */
export const findEmail = (db: Db, projectId: number, id: string) =>
  withBodies(db).where('emails.project_id', '=', projectId).where('emails.id', '=', id).executeTakeFirst()

/** What a reply needs of the email it answers, when it is the project's: its Message-ID and its built message (null once retention took it). */
export const threadFactsOf = (db: Db, projectId: number, id: string) =>
  db
    .selectFrom('emails')
    .leftJoin('email_contents', 'email_contents.email_id', 'emails.id')
    .select(['emails.message_id', 'email_contents.mime'])
    .where('emails.project_id', '=', projectId)
    .where('emails.id', '=', id)
    .executeTakeFirst()

export const withBodies = (db: Db) =>
  db.selectFrom('emails').leftJoin('email_contents', 'email_contents.email_id', 'emails.id').selectAll('emails').select(['email_contents.html', 'email_contents.text'])

/** Which of a project's emails a list shows: created from `from` to `to` (ms, both included), from some sending domains. */
export interface EmailFilter {
  projectId: number
  from?: number
  to?: number
  domainIds?: readonly number[]
  /** The latest status. */
  status?: EmailStatus
  /** Parts of the recipients (to, cc, bcc), the sender and the subject, ignoring case. */
  recipient?: string
  sender?: string
  subject?: string
}

/** The text filters: contained in the column, ignoring ASCII case (each row the index order reaches is looked at). */
const TEXT_FILTERS = [
  ['recipient', 'emails.recipients'],
  ['sender', 'emails.from_address'],
  ['subject', 'emails.subject'],
] as const

function filtered(db: Db, filter: EmailFilter) {
  let query = db
    .selectFrom('emails')
    .where('emails.project_id', '=', filter.projectId)
    .$if(filter.from !== undefined, (qb) => qb.where('emails.created_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (qb) => qb.where('emails.created_at', '<=', filter.to!))
    .$if(filter.domainIds !== undefined, (qb) => qb.where('emails.domain_id', 'in', filter.domainIds!))
    .$if(filter.status !== undefined, (qb) => qb.where('emails.status', '=', filter.status!))
  for (const [name, column] of TEXT_FILTERS) {
    const text = filter[name]
    if (text) query = query.where(likeIgnoringCase(dialectOf(db), sql.ref(column), likePattern(text, 'contains')))
  }
  return query
}

/**
 * A page of the emails, newest first, with their bodies: read in the order of the index
 * (project_id, created_at, id), or (domain_id, created_at, id) for one domain, so that a page
 * costs its offset and its rows, never a sort of every email the filter keeps.
 */
export const emailPage = (db: Db, filter: EmailFilter, page: number, limit: number) =>
  filtered(db, filter)
    .leftJoin('email_contents', 'email_contents.email_id', 'emails.id')
    .selectAll('emails')
    .select(['email_contents.html', 'email_contents.text'])
    .orderBy('emails.created_at', 'desc')
    .orderBy('emails.id', 'desc')
    .limit(limit)
    .offset((page - 1) * limit)

/** How many emails the filter keeps: a count over the same index. */
export const countEmails = async (db: Db, filter: EmailFilter) =>
  Number((await filtered(db, filter).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count)

export const emailEvents = (db: Db, emailId: string) =>
  db.selectFrom('email_events').selectAll().where('email_id', '=', emailId).orderBy('created_at').orderBy('id').execute()

/** Keeps the DKIM-Signature header(s) of the email's first attempt; a later attempt's leaves it. Prepared: it runs at every first outcome. */
export const storeDkimHeader = prepared((db, p: { emailId: string; header: string }) =>
  db.updateTable('emails').set({ dkim_header: p.header }).where('id', '=', p.emailId).where('dkim_header', 'is', null),
)

/** The DKIM-Signature header(s) the email was signed with at its first attempt; null before it. */
export const dkimHeaderOf = async (db: Db, emailId: string) =>
  (await db.selectFrom('emails').select('dkim_header').where('id', '=', emailId).executeTakeFirst())?.dkim_header ?? null

/** The email's message as built (unsigned), and its signature once the first attempt made one; nothing once retention deleted the body. */
export const rawMessageOf = (db: Db, emailId: string) =>
  db.selectFrom('emails').innerJoin('email_contents', 'email_contents.email_id', 'emails.id').select(['email_contents.mime', 'emails.dkim_header']).where('emails.id', '=', emailId).executeTakeFirst()

/** The From addresses of the project's sandbox mail not yet settled (waiting, held or being attempted). */
export const sandboxSendersInFlight = async (db: Db, projectId: number) =>
  (
    await db
      .selectFrom(deliveryRows(db).as('deliveries'))
      .innerJoin('emails', 'emails.id', 'deliveries.email_id')
      .select('emails.from_address')
      .distinct()
      .where('deliveries.project_id', '=', projectId)
      .where('deliveries.sandbox', '=', 1)
      .where('deliveries.state', 'in', ['queued', 'deferred', 'scheduled', 'paused', 'sending'])
      .execute()
  ).map((row) => row.from_address)
