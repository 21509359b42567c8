import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { deleteRecipientsOf } from '../campaigns/index.ts'
import { deleteContact, findContactRow, toContact } from '../contacts/index.ts'
import { allContactEmails, eraseContactEmails } from '../emails/index.ts'
import { allContactEvents, eraseContactEvents } from '../events/index.ts'
import { contactMemberships, contactOptIns, eraseContactMemberships } from '../segments/index.ts'
import { erasedKey, suppressErased } from '../suppressions/index.ts'
import { eraseDeliveriesNaming } from '../webhooks/index.ts'
import { allContactRuns, eraseContactRuns } from '../workflows/index.ts'
import { notFound } from '../../lib/errors.ts'

/*
 * A contact's privacy: everything the project holds about it, as one document, and its erasure
 * from every table that names it. This module sits above the entities it reads and writes (none
 * imports it); each table's rows are read and deleted by the module that owns it.
 */

async function requireContact(db: Db, projectId: number, id: string) {
  const row = await findContactRow(db, projectId, id)
  if (!row) throw notFound('Contact')
  return row
}

/**
 * Everything held about the contact: its data and subscription, its events, the emails sent to it
 * (their metadata, events and delivery states; not their bodies), its segments and books with each
 * consent and opt-in request, and its workflow runs with their histories.
 */
export async function exportContact(db: Db, projectId: number, id: string, now: number) {
  const row = await requireContact(db, projectId, id)
  const who = { contactId: row.id, emailKey: row.email_key }
  const [events, emails, memberships, optIns, workflowRuns] = await Promise.all([
    allContactEvents(db, projectId, row.id),
    allContactEmails(db, projectId, who),
    contactMemberships(db, projectId, row.id, now),
    contactOptIns(db, projectId, row.id),
    allContactRuns(db, projectId, row.id),
  ])
  return {
    exportedAt: isoTime(now),
    contact: toContact(row),
    events,
    emails,
    segments: memberships.segments,
    books: memberships.books,
    optIns,
    workflowRuns,
  }
}

/**
 * Erases the contact in the caller's transaction: its workflow runs, book requests and consents,
 * listings and memberships, campaign places, events, the emails sent to it (with their
 * deliveries), the webhook deliveries whose payload names it, and the contact itself; its address
 * stays suppressed by its hash only, so that it is not mailed again. Answers what went.
 */
export async function eraseContact(db: Db, projectId: number, id: string, now: number) {
  const row = await requireContact(db, projectId, id)
  const who = { contactId: row.id, emailKey: row.email_key }
  const workflowRuns = await eraseContactRuns(db, projectId, row.id)
  await eraseContactMemberships(db, projectId, row.id)
  await deleteRecipientsOf(db, row.id)
  const events = await eraseContactEvents(db, projectId, row.id)
  const emails = (await eraseContactEmails(db, projectId, who)).length
  const webhookDeliveries = await eraseDeliveriesNaming(db, projectId, { id: row.id, emailKey: row.email_key })
  await suppressErased(db, projectId, row.email_key, now)
  await deleteContact(db, projectId, row.id, now, true)
  return { id: row.id, erased: { events, emails, webhookDeliveries, workflowRuns }, suppression: erasedKey(row.email_key) }
}
