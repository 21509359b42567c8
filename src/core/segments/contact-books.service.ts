import { textsIn } from '../../db/lists.ts'
import type { Db } from '../../db/schema.ts'
import { checkAddress, requireAddress } from '../../lib/address.ts'
import { isoTime } from '../../lib/clock.ts'
import { invalid, notFound } from '../../lib/errors.ts'
import { contactsByIds, projectContacts } from '../contacts/index.ts'
import { checkContactData, contactFields, toContact, type Contact } from '../contacts/contact.ts'
import { findContactRow, updateContact, writeContacts } from '../contacts/contacts.service.ts'
import { contactsWritten } from '../reactions.ts'
import { mailboxOf, senderDomain } from '../emails/index.ts'
import { defaultSenderOf } from '../projects/project-queries.ts'
import { checkSubject } from '../templates/subject.ts'
import { consentOf, pendingContacts, prepareOptIns, recordConsents, requestOptIns, resendOptIn, type ConsentClient, type ConsentSource, type OptInMail, type PreparedOptIns } from './opt-in.service.ts'
import * as repo from './segments.repository.ts'
import { createSegment, deleteSegment } from './segments.service.ts'

/** A contact book (useSend's form) is a STATIC segment; what useSend's form adds is kept in its meta. */
interface BookMeta {
  book: true
  emoji: string
  properties: Record<string, unknown>
  variables: string[]
  doubleOptIn?: DoubleOptIn
}

/** useSend's double opt-in of a book: new contacts are pending until they follow the emailed link. */
export interface DoubleOptIn {
  enabled: boolean
  /** A sender on a verified domain of the project; null: the project's default sender. */
  from: string | null
  subject: string
  /** HTML with {{doubleOptInUrl}}, the link that confirms. */
  content: string
}

export const OPT_IN_URL = '{{doubleOptInUrl}}'

export const DEFAULT_OPT_IN: DoubleOptIn = {
  enabled: false,
  from: null,
  subject: 'Please confirm your subscription',
  content: `<p>Please confirm that you want to receive our emails.</p><p><a href="${OPT_IN_URL}">Confirm my subscription</a></p><p>If you did not ask for this, ignore this email and you will not hear from us again.</p>`,
}

export const optInOf = (meta: BookMeta): DoubleOptIn => ({ ...DEFAULT_OPT_IN, ...meta.doubleOptIn })

const metaOf = (row: repo.SegmentRow): BookMeta | undefined => {
  const meta = row.meta ? JSON.parse(row.meta) : undefined
  return meta?.book ? { variables: [], ...meta } : undefined
}

/** Whether the segment is a contact book, and its emoji when it is. */
export const bookEmojiOf = (row: repo.SegmentRow): string | undefined => metaOf(row)?.emoji

async function requireBook(db: Db, projectId: number, id: string) {
  const row = await repo.findSegment(db, projectId, id)
  const meta = row && metaOf(row)
  if (!row || !meta) throw notFound('Contact book')
  return { row, meta }
}

/**
 * A list people can be added to: a contact book (with its double opt-in) or a static segment
 * (none); a dynamic segment's members come from its condition, so it is not one. `field` names the
 * refusal.
 */
export async function requireList(db: Db, projectId: number, id: string, field: string): Promise<{ row: repo.SegmentRow; optIn: DoubleOptIn }> {
  const row = await repo.findSegment(db, projectId, id)
  if (!row) throw notFound('Contact book or segment')
  const meta = metaOf(row)
  if (meta) return { row, optIn: optInOf(meta) }
  if (row.type !== 'STATIC') throw invalid(field, "must be a contact book or a static segment: a dynamic segment's members come from its condition")
  return { row, optIn: DEFAULT_OPT_IN }
}

async function toBook(db: Db, row: repo.SegmentRow, meta: BookMeta) {
  const count = await repo.listedMemberCount(db, row.id)
  return {
    id: row.id,
    name: row.name,
    teamId: row.project_id,
    emoji: meta.emoji,
    properties: meta.properties,
    variables: meta.variables,
    ...optInFields(optInOf(meta)),
    contactCount: count,
    _count: { contacts: count },
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

const optInFields = (optIn: DoubleOptIn) => ({
  doubleOptInEnabled: optIn.enabled,
  doubleOptInFrom: optIn.from,
  doubleOptInSubject: optIn.subject,
  doubleOptInContent: optIn.content,
})

export interface BookInput {
  name: string
  emoji?: string
  properties?: Record<string, unknown>
  variables?: string[]
  doubleOptInEnabled?: boolean
  doubleOptInFrom?: string | null
  doubleOptInSubject?: string
  doubleOptInContent?: string
}

/**
 * The book's double opt-in after `input`: the sender must be on a verified domain of the project
 * (any address in a sandbox), or be left to the project's default sender when it has one; while
 * it is enabled the content must carry the link to confirm.
 */
async function nextOptIn(db: Db, projectId: number, current: DoubleOptIn, input: Partial<BookInput>): Promise<DoubleOptIn> {
  const next: DoubleOptIn = {
    enabled: input.doubleOptInEnabled ?? current.enabled,
    from: input.doubleOptInFrom !== undefined ? input.doubleOptInFrom : current.from,
    subject: input.doubleOptInSubject ?? current.subject,
    content: input.doubleOptInContent ?? current.content,
  }
  if (input.doubleOptInFrom) {
    const address = mailboxOf(input.doubleOptInFrom, 'doubleOptInFrom').address
    await senderDomain(db, projectId, address).catch(() => {
      throw invalid('doubleOptInFrom', 'must be an address on a verified domain of this project')
    })
  }
  if (next.enabled && next.from === null && (input.doubleOptInEnabled !== undefined || input.doubleOptInFrom !== undefined) && !(await defaultSenderOf(db, projectId))) {
    throw invalid('doubleOptInFrom', "is needed while double opt-in is enabled: this project has no default sender to send the confirmation from (set one with PATCH /api/v1/project {defaultSender})")
  }
  if (input.doubleOptInSubject !== undefined) checkSubject(input.doubleOptInSubject, 'doubleOptInSubject')
  if (next.enabled && !next.content.includes(OPT_IN_URL)) {
    throw invalid('doubleOptInContent', `must contain ${OPT_IN_URL}, the link that confirms the subscription, while double opt-in is enabled`)
  }
  return next
}

export async function createBook(db: Db, projectId: number, input: BookInput, now: number) {
  const doubleOptIn = await nextOptIn(db, projectId, DEFAULT_OPT_IN, input)
  const meta: BookMeta = { book: true, emoji: input.emoji ?? '📙', properties: input.properties ?? {}, variables: input.variables ?? [], doubleOptIn }
  const segment = await createSegment(db, projectId, { name: input.name, type: 'STATIC' }, now, meta)
  return getBook(db, projectId, segment.id)
}

export async function getBook(db: Db, projectId: number, id: string) {
  const { row, meta } = await requireBook(db, projectId, id)
  return toBook(db, row, meta)
}

export async function listBooks(db: Db, projectId: number) {
  const rows = (await repo.listSegments(db, projectId)).filter((row) => metaOf(row))
  return Promise.all(rows.map((row) => toBook(db, row, metaOf(row)!)))
}

export async function updateBook(db: Db, projectId: number, id: string, patch: Partial<BookInput>, now: number) {
  const { meta } = await requireBook(db, projectId, id)
  if (patch.name !== undefined && (patch.name.trim() === '' || patch.name.length > 200)) throw invalid('name', 'must be 1 to 200 characters')
  const next: BookMeta = {
    ...meta,
    ...(patch.emoji !== undefined && { emoji: patch.emoji }),
    ...(patch.properties !== undefined && { properties: patch.properties }),
    ...(patch.variables !== undefined && { variables: patch.variables }),
    doubleOptIn: await nextOptIn(db, projectId, optInOf(meta), patch),
  }
  await repo.updateSegment(db, id, { ...(patch.name !== undefined && { name: patch.name.trim() }), meta: JSON.stringify(next), updated_at: now })
  return getBook(db, projectId, id)
}

/** Deletes the book; its contacts stay contacts of the project. */
export async function deleteBook(db: Db, projectId: number, id: string, now: number) {
  await requireBook(db, projectId, id)
  await deleteSegment(db, projectId, id, now)
  return { id, success: true, message: 'Contact book deleted' }
}

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
