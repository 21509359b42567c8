import { sql } from 'kysely'
import { likeIgnoringCase, likePattern } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import { textsIn } from '../../db/lists.ts'
import type { Db, EmailTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { deleteDeliveriesOf, deliveriesOf } from '../queue/index.ts'
import { emailEvents } from './emails.repository.ts'

/*
 * The emails of one contact: those it was sent as a contact (a campaign's, a workflow's, Plunk's
 * send with a contact), and those addressed to its address in to, cc or bcc. What its page lists,
 * what its privacy export holds and what its erasure removes.
 */

/** Whose emails: the contact's id and its address key (its address, lower-cased). */
export interface EmailsOf {
  contactId: string
  emailKey: string
}

/** The project's emails of the contact, as a WHERE over `emails`: its id, or its address quoted (`"a@b"`) or bracketed (`<a@b>`) among the recipients. */
function ofContact(db: Db, projectId: number, who: EmailsOf) {
  const dialect = dialectOf(db)
  const named = (text: string) => likeIgnoringCase(dialect, sql.ref('recipients'), likePattern(text, 'contains'))
  return db
    .selectFrom('emails')
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('contact_id', '=', who.contactId), named(`"${who.emailKey}"`), named(`<${who.emailKey}>`)]))
}

type EmailFacts = Pick<EmailTable, 'id' | 'from_address' | 'recipients' | 'subject' | 'status' | 'created_at' | 'updated_at'>

const FACTS = ['id', 'from_address', 'recipients', 'subject', 'status', 'created_at', 'updated_at'] as const

/** An email of a contact as its page lists it: who it was from and to, its subject and its latest status. */
function toContactEmail(row: EmailFacts) {
  const recipients = JSON.parse(row.recipients) as { to: string[]; cc: string[]; bcc: string[] }
  return {
    id: row.id,
    from: row.from_address,
    to: recipients.to,
    cc: recipients.cc,
    bcc: recipients.bcc,
    subject: row.subject,
    status: row.status,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

/** A page of the contact's emails, newest first, and how many there are. */
export async function contactEmails(db: Db, projectId: number, who: EmailsOf, page: number, limit: number) {
  const rows = await ofContact(db, projectId, who)
    .select(FACTS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute()
  const { n } = await ofContact(db, projectId, who).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return { data: rows.map(toContactEmail), count: Number(n) }
}

/** Every email of the contact with its events and how each delivery went, newest first: what a privacy export holds (no bodies). */
export async function allContactEmails(db: Db, projectId: number, who: EmailsOf) {
  const rows = await ofContact(db, projectId, who).select(FACTS).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
  const emails = []
  for (const row of rows) {
    const [events, deliveries] = await Promise.all([emailEvents(db, row.id), deliveriesOf(db, row.id)])
    emails.push({
      ...toContactEmail(row),
      events: events.map((e) => ({ status: e.status, data: e.data === null ? null : (JSON.parse(e.data) as unknown), createdAt: isoTime(e.created_at) })),
      deliveries: deliveries.map((d) => ({ recipient: d.recipient, state: d.state, attempts: d.attempts, lastResponse: d.last_response, updatedAt: isoTime(d.updated_at) })),
    })
  }
  return emails
}

/**
 * Erases the contact's emails whole: their deliveries (through the queue, their owner), events,
 * stored bodies, bounce notices and rows. An email that had other recipients too goes whole as
 * well, since its headers and body name the erased address. Counters already counted (the
 * project's sending counters, a campaign's totals) keep their numbers. Answers the emails' ids.
 */
export async function eraseContactEmails(db: Db, projectId: number, who: EmailsOf): Promise<string[]> {
  const ids = (await ofContact(db, projectId, who).select('id').execute()).map((row) => row.id)
  if (ids.length === 0) return ids
  await deleteDeliveriesOf(db, ids)
  for (const table of ['email_events', 'email_contents', 'relay_bounce_notices'] as const) {
    await db.deleteFrom(table).where('email_id', 'in', textsIn(db, ids)).execute()
  }
  await db.deleteFrom('emails').where('id', 'in', textsIn(db, ids)).execute()
  return ids
}
