import { textsIn } from '../../db/lists.ts'
import type { Db } from '../../db/schema.ts'
import { checkAddress, requireAddress } from '../../lib/address.ts'
import { notFound } from '../../lib/errors.ts'
import { contactsByIds, projectContacts } from '../contacts/index.ts'
import { checkContactData, contactFields, toContact, type Contact } from '../contacts/contact.ts'
import { findContactRow, updateContact, writeContacts } from '../contacts/contacts.service.ts'
import { contactsWritten } from '../reactions.ts'
import { metaOf, optInOf, requireBook, type DoubleOptIn } from './contact-books.service.ts'
import { consentOf, pendingContacts, prepareOptIns, recordConsents, requestOptIns, resendOptIn, type ConsentClient, type ConsentSource, type OptInMail, type PreparedOptIns } from './opt-in.service.ts'
import * as repo from './segments.repository.ts'

/*
 * The contacts of contact books (and of static segments, for sign-up forms): adding them (listed
 * at once with their consent, or asked to confirm by double opt-in), reading and removing them,
 * the ones still waiting to confirm, and what a recipient chooses on its preference page. The
 * books themselves are contact-books.service.ts.
 */

export interface BookContactInput {
  email: string
  firstName?: string
  lastName?: string
  properties?: Record<string, unknown>
  subscribed?: boolean
}

/** useSend's names onto a contact's data: firstName and lastName beside the properties. */
function dataOf(input: Partial<BookContactInput>, field = 'properties'): Record<string, unknown> | undefined {
  const data = { ...input.properties, ...(input.firstName !== undefined && { firstName: input.firstName }), ...(input.lastName !== undefined && { lastName: input.lastName }) }
  checkContactData(data, field)
  return Object.keys(data).length > 0 ? data : undefined
}

/** A contact as useSend shows a contact book's contacts. */
export function toBookContact(contact: Contact, bookId: string) {
  const { firstName, lastName, ...properties } = contact.data as { firstName?: string; lastName?: string }
  return {
    id: contact.id,
    email: contact.email,
    firstName: firstName ?? null,
    lastName: lastName ?? null,
    subscribed: contact.subscribed,
    properties,
    contactBookId: bookId,
    createdAt: contact.createdAt,
    updatedAt: contact.updatedAt,
  }
}

/**
 * Creates or updates contacts by email (data merged, subscribed changed only when given) and lists
 * them in the book, all in the caller's transaction: every one is checked before anything is
 * written, so a bad one (named by its index under `field`) leaves the book as it was. What
 * follows is reported once they are listed, so tracked segments see both.
 */
async function addToBook(db: Db, projectId: number, bookId: string, inputs: readonly BookContactInput[], source: ConsentSource, mail: OptInMail, now: number, at: (i: number) => string, prepared?: PreparedOptIns) {
  const { row, meta } = await requireBook(db, projectId, bookId)
  return addToList(db, projectId, { row, optIn: optInOf(meta) }, inputs, source, mail, now, at, prepared)
}

/**
 * Before the write transaction: the confirmations adding `inputs` to the book or static segment
 * `listId` may send (none while it asks for no double opt-in, or when it is not found: the
 * transaction says so).
 */
export async function prepareListOptIns(db: Db, projectId: number, listId: string, inputs: readonly Pick<BookContactInput, 'email'>[], mail: OptInMail, now: number): Promise<PreparedOptIns | undefined> {
  const row = await repo.findSegment(db, projectId, listId)
  const meta = row && metaOf(row)
  const optIn = meta && optInOf(meta)
  if (!row || !optIn?.enabled) return undefined
  return prepareOptIns(db, projectId, { id: row.id, name: row.name, ...optIn }, inputs.map((input) => input.email), mail, now)
}

/**
 * Adds to a book or a static segment: listed at once with the consent of `source`, or, while the
 * book asks for double opt-in, written and sent a confirmation to follow.
 */
export async function addToList(
  db: Db,
  projectId: number,
  list: { row: repo.SegmentRow; optIn: DoubleOptIn },
  inputs: readonly BookContactInput[],
  source: ConsentSource,
  mail: OptInMail,
  now: number,
  at: (i: number) => string,
  prepared?: PreparedOptIns,
) {
  const { row, optIn } = list
  const bookId = row.id
  const contacts = inputs.map((input, i) => ({
    address: requireAddress(input.email, `${at(i)}email`),
    subscribed: input.subscribed,
    data: dataOf(input, `${at(i)}properties`),
  }))
  const { ids, writes } = await writeContacts(db, projectId, contacts, now)
  if (optIn.enabled) {
    // Pending until each follows the link of its confirmation: written, asked, not listed.
    await contactsWritten(db, projectId, { ...writes, touched: ids }, now)
    await requestOptIns(db, projectId, { id: bookId, name: row.name, ...optIn }, ids.map((id, i) => ({ id, email: contacts[i]!.address.address })), source, mail, now, { prepared })
    return ids
  }
  const listed = new Set(await repo.listedAmong(db, bookId, ids))
  await repo.addMembers(db, bookId, ids, now)
  await recordConsents(db, projectId, row, [...new Set(ids)].filter((id) => !listed.has(id)), source, now)
  await contactsWritten(db, projectId, { ...writes, touched: ids }, now)
  return ids
}

/** With double opt-in, the contact is written and sent its confirmation, and listed once it confirms. */
export async function addBookContact(db: Db, projectId: number, bookId: string, input: BookContactInput, source: ConsentSource, mail: OptInMail, now: number, prepared?: PreparedOptIns) {
  const [contactId] = await addToBook(db, projectId, bookId, [input], source, mail, now, () => '', prepared)
  return { contactId: contactId! }
}

/** Up to 1,000 at once, all or none. */
export async function addBookContacts(db: Db, projectId: number, bookId: string, inputs: readonly BookContactInput[], source: ConsentSource, mail: OptInMail, now: number, prepared?: PreparedOptIns) {
  await addToBook(db, projectId, bookId, inputs, source, mail, now, (i) => `[${i}].`, prepared)
  return { message: `Added ${inputs.length} contacts`, count: inputs.length }
}

async function requireBookContact(db: Db, projectId: number, bookId: string, contactId: string) {
  await requireBook(db, projectId, bookId)
  const member = await db.selectFrom('segment_members').select('contact_id').where('segment_id', '=', bookId).where('contact_id', '=', contactId).executeTakeFirst()
  const row = member && (await findContactRow(db, projectId, contactId))
  if (!row) throw notFound('Contact')
  return row
}

/** One of the book's contacts, with the consent it gave by double opt-in (null when it gave none). */
export async function getBookContact(db: Db, projectId: number, bookId: string, contactId: string) {
  const contact = toBookContact(toContact(await requireBookContact(db, projectId, bookId, contactId)), bookId)
  return { ...contact, consent: await consentOf(db, bookId, contactId) }
}

export async function updateBookContact(db: Db, projectId: number, bookId: string, contactId: string, patch: Partial<BookContactInput>, now: number) {
  await requireBookContact(db, projectId, bookId, contactId)
  await updateContact(db, projectId, contactId, { subscribed: patch.subscribed, data: dataOf(patch) }, now)
  return { contactId }
}

/**
 * PUT of the book's contact named by the path: its address becomes `email` (409 if another
 * contact has it), the rest as in an update. useSend upserts by email whatever the path says; the
 * path names the contact here, so a request cannot change some other contact than the one it names.
 */
export async function putBookContact(db: Db, projectId: number, bookId: string, contactId: string, input: BookContactInput, now: number) {
  await requireBookContact(db, projectId, bookId, contactId)
  await updateContact(db, projectId, contactId, { email: input.email, subscribed: input.subscribed, data: dataOf(input) }, now)
  return { contactId }
}

/** Takes one contact out of the book; it stays a contact of the project. */
export async function removeBookContact(db: Db, projectId: number, bookId: string, contactId: string, now: number) {
  await requireBookContact(db, projectId, bookId, contactId)
  await removeBookContacts(db, projectId, bookId, [contactId], now)
  return { success: true }
}

/** Takes contacts out of the book; ids that are not in it are passed over. */
export async function removeBookContacts(db: Db, projectId: number, bookId: string, contactIds: readonly string[], now: number) {
  await requireBook(db, projectId, bookId)
  const removed = await repo.removeMembers(db, bookId, contactIds)
  await contactsWritten(db, projectId, { touched: removed }, now)
  return { success: true, count: removed.length }
}

export interface BookContactQuery {
  page: number
  limit: number
  /** Only these addresses or ids, when given. */
  emails?: string[]
  ids?: string[]
}

const keyOf = (email: string): string[] => {
  const checked = checkAddress(email)
  return checked.ok ? [checked.value.key] : []
}

/** A page of the book's contacts, newest first. */
export async function listBookContacts(db: Db, projectId: number, bookId: string, query: BookContactQuery) {
  await requireBook(db, projectId, bookId)
  let rows = projectContacts(db, projectId)
    .innerJoin('segment_members as m', 'm.contact_id', 'c.id')
    .select(contactFields)
    .where('m.segment_id', '=', bookId)
  if (query.emails) rows = rows.where('c.email_key', 'in', textsIn(db, query.emails.flatMap((email) => keyOf(email.trim()))))
  if (query.ids) rows = rows.where('c.id', 'in', textsIn(db, query.ids))
  const page = await rows
    .orderBy('c.id', 'desc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute()
  return page.map((row) => toBookContact(toContact(row), bookId))
}

/** The book's contacts waiting to confirm (double opt-in), newest first; expired ones say so. */
export async function listPendingContacts(db: Db, projectId: number, bookId: string, page: number, limit: number, now: number) {
  await requireBook(db, projectId, bookId)
  return pendingContacts(db, projectId, bookId, page, limit, now)
}

/** Sends a pending contact of the book a new confirmation link. */
export async function resendConfirmation(db: Db, projectId: number, bookId: string, contactId: string, mail: OptInMail, now: number) {
  const { row, meta } = await requireBook(db, projectId, bookId)
  return resendOptIn(db, projectId, { id: bookId, name: row.name, ...optInOf(meta) }, contactId, mail, now)
}

/** The project's books as a recipient's preference page offers them, by name, each with whether the contact is in it. */
export async function preferenceBooks(db: Db, projectId: number, contactId: string) {
  const books = (await repo.listSegments(db, projectId)).filter((row) => metaOf(row) !== undefined)
  const listed = await repo.listsOf(db, contactId, books.map((row) => row.id))
  return books.map((row) => ({ id: row.id, name: row.name, listed: listed.has(row.id) })).sort((a, b) => a.name.localeCompare(b.name))
}

/**
 * What a recipient chose on its preference page: it joins the books checked (listed at once, with
 * the consent `preferences`: the link it followed was mailed to its address) and leaves the others.
 * Ids that are not the project's books are passed over.
 */
export async function choosePreferenceBooks(db: Db, projectId: number, contactId: string, chosen: readonly string[], client: ConsentClient, now: number) {
  const books = await preferenceBooks(db, projectId, contactId)
  const wanted = new Set(chosen)
  const joining = books.filter((book) => wanted.has(book.id) && !book.listed)
  const leaving = books.filter((book) => !wanted.has(book.id) && book.listed)
  for (const book of joining) {
    await repo.addMembers(db, book.id, [contactId], now)
    await recordConsents(db, projectId, book, [contactId], { method: 'preferences', ...client }, now)
  }
  for (const book of leaving) await repo.removeMembers(db, book.id, [contactId])
  if (joining.length + leaving.length > 0) await contactsWritten(db, projectId, { touched: [contactId] }, now)
  return { joined: joining.map((b) => b.name), left: leaving.map((b) => b.name) }
}

/**
 * Lists these contacts of the project in the book (a bulk action's chunk), with the consent of
 * `source`; with double opt-in each is sent its confirmation instead (`prepared` ahead, see
 * prepareContactsOptIns), and listed once it confirms. Ids of no contact of the project are passed
 * over; answers how many were not in the book yet.
 */
export async function addContactsToBook(db: Db, projectId: number, bookId: string, contactIds: readonly string[], source: ConsentSource, mail: OptInMail, now: number, prepared?: PreparedOptIns): Promise<number> {
  const { row, meta } = await requireBook(db, projectId, bookId)
  const listed = new Set(await repo.listedAmong(db, bookId, contactIds))
  const contacts = (await contactsByIds(db, projectId, contactIds)).filter((contact) => !listed.has(contact.id))
  const ids = contacts.map((contact) => contact.id)
  const optIn = optInOf(meta)
  if (optIn.enabled) {
    await requestOptIns(db, projectId, { id: bookId, name: row.name, ...optIn }, contacts.map((contact) => ({ id: contact.id, email: contact.email })), source, mail, now, { prepared })
    return ids.length
  }
  await repo.addMembers(db, bookId, ids, now)
  await recordConsents(db, projectId, row, ids, source, now)
  await contactsWritten(db, projectId, { touched: ids }, now)
  return ids.length
}

/** Before a chunk's write transaction: the confirmations adding these contacts to the book may send. */
export async function prepareContactsOptIns(db: Db, projectId: number, bookId: string, contactIds: readonly string[], mail: OptInMail, now: number) {
  const contacts = await contactsByIds(db, projectId, contactIds)
  return prepareListOptIns(db, projectId, bookId, contacts.map((contact) => ({ email: contact.email })), mail, now)
}

/** Checks that the book exists before a bulk action reads its first chunk. */
export const checkBook = async (db: Db, projectId: number, bookId: string): Promise<void> => void (await requireBook(db, projectId, bookId))
