import type { ContactRow, Db } from '../../db/schema.ts'
import { conflict, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { contactDeleted, contactEdited, contactSaved, contactsWritten, type ContactChange, type ContactWrites } from '../reactions.ts'
import { checkContactData, CONTACT_SORTS, decodeCursor, encodeCursor, toContact, type ContactSort, type UnsubscribeSource } from './contact.ts'
import type { Direction } from '../../db/sorting.ts'
import { requireAddress } from '../../lib/address.ts'
import { upsertContacts, type ContactUpsert } from './contact-upsert.ts'
import * as repo from './contacts.repository.ts'

export interface ContactInput {
  email: string
  subscribed?: boolean
  data?: Record<string, unknown>
}

/**
 * Creates the contact or updates the one with this address (case-insensitively). `subscribed` and
 * `data` change only when given; `data` is merged and a null value removes its key. A new contact
 * without `subscribed` gets `subscribedIfNew`. What follows the change runs in the caller's
 * transaction.
 */
export async function saveContact(db: Db, projectId: number, input: ContactInput, now: number, subscribedIfNew = true) {
  const change = await writeContact(db, projectId, input, now, subscribedIfNew)
  await contactSaved(db, change, now)
  return { contact: toContact(change.after), created: change.before === undefined }
}

/**
 * saveContact's write alone, for a service that writes more before it reports the change
 * (reactions.contactSaved) once: a tracked event with its contact.
 */
export async function writeContact(db: Db, projectId: number, input: ContactInput, now: number, subscribedIfNew = true): Promise<ContactChange> {
  const address = requireAddress(input.email)
  if (input.data) checkContactData(input.data)
  const existing = await repo.findContactByKey(db, projectId, address.key)
  if (existing) return { before: existing, after: await repo.updateContact(db, existing.id, { subscribed: input.subscribed, data: input.data }, now) }
  const row = await repo.insertContact(
    db,
    { id: newId(), project_id: projectId, email: address.address, email_key: address.key, subscribed: input.subscribed ?? subscribedIfNew },
    input.data ?? {},
    now,
  )
  // Another process stored the address since it was looked up (PostgreSQL): it is an update after all.
  if (!row) return writeContact(db, projectId, input, now, subscribedIfNew)
  return { before: undefined, after: row }
}

/**
 * Creates or updates many contacts by address at once (saveContact's rules), for a service that
 * lists them before it reports the change (reactions.contactsWritten) once: a contact book's, a
 * static segment's.
 */
export const writeContacts = (db: Db, projectId: number, contacts: readonly ContactUpsert[], now: number): Promise<{ ids: string[]; writes: ContactWrites }> =>
  upsertContacts(db, projectId, contacts, now)

/**
 * The address bounced for good or its recipient complained: the project's contact with it, when
 * subscribed, is no longer, and what follows says why (`source`).
 */
export async function unsubscribeAddress(db: Db, projectId: number, emailKey: string, source: UnsubscribeSource, now: number): Promise<void> {
  const ids = await repo.unsubscribeByKey(db, projectId, emailKey, now)
  if (ids.length > 0) await contactsWritten(db, projectId, { updated: ids, unsubscribed: ids }, now, source)
}

/** The project's contact with this id, as stored; undefined when there is none. */
export const findContactRow = (db: Db, projectId: number, id: string): Promise<ContactRow | undefined> => repo.findContact(db, projectId, id)

/** The project's contact with this address key, as stored; undefined when there is none. */
export const findContactRowByKey = (db: Db, projectId: number, emailKey: string): Promise<ContactRow | undefined> => repo.findContactByKey(db, projectId, emailKey)

export async function getContact(db: Db, projectId: number, id: string) {
  const row = await repo.findContact(db, projectId, id)
  if (!row) throw notFound('Contact')
  return toContact(row)
}

export async function updateContact(db: Db, projectId: number, id: string, patch: Partial<ContactInput>, now: number) {
  const existing = await repo.findContact(db, projectId, id)
  if (!existing) throw notFound('Contact')
  if (patch.data) checkContactData(patch.data)
  const changes: repo.ContactChanges = { subscribed: patch.subscribed, data: patch.data }
  if (patch.email !== undefined) {
    const address = requireAddress(patch.email)
    const holder = await repo.findContactByKey(db, projectId, address.key)
    if (holder && holder.id !== id) throw conflict(`Another contact already has the address ${patch.email}`)
    Object.assign(changes, { email: address.address, email_key: address.key })
  }
  const row = await repo.updateContact(db, id, changes, now)
  await contactEdited(db, { before: existing, after: row }, now)
  return toContact(row)
}

/**
 * Deletes the contact (its events, listings and runs go with it by their foreign keys); webhooks
 * hear of it. An erasure (`erased`, once the other modules erased what names the contact) keeps
 * its address out of what they hear.
 */
export async function deleteContact(db: Db, projectId: number, id: string, now: number, erased = false) {
  const row = await repo.findContact(db, projectId, id)
  if (!row) throw notFound('Contact')
  await repo.deleteContact(db, projectId, id)
  await contactDeleted(db, projectId, { id, email: erased ? null : row.email }, now)
  return { id, success: true, message: erased ? 'Contact erased' : 'Contact deleted' }
}

export interface ContactPageQuery {
  limit: number
  cursor?: string
  subscribed?: boolean
  search?: string
  sort?: ContactSort
  dir?: Direction
  /** A condition over the contacts' alias `c` that a higher module compiled (a segment condition). */
  where?: repo.ContactFilter['where']
}

/**
 * One page, newest first unless sorted otherwise, by keyset on (sort column, id): a contact that
 * exists throughout the paging, unchanged in its sort column, is seen exactly once, whatever is
 * added or deleted between pages.
 */
export async function listContacts(db: Db, projectId: number, query: ContactPageQuery) {
  const sort = query.sort ?? 'createdAt'
  const dir = query.dir ?? 'desc'
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort, dir)
  const filter = { subscribed: query.subscribed, search: query.search?.toLowerCase(), where: query.where }
  // The address key is unique in a project: it alone orders, with no ties for the id to break.
  const order = { column: CONTACT_SORTS[sort], dir, unique: sort === 'email' }
  const rows = await repo.pageContacts(db, projectId, filter, query.limit + 1, order, after)
  const hasMore = rows.length > query.limit
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  return {
    contacts: page.map(toContact),
    cursor: hasMore && last ? encodeCursor({ sort, dir, id: last.id, value: sort === 'email' ? last.email_key : last.created_at }) : null,
    hasMore,
    ...(after === undefined && { total: await repo.countContacts(db, projectId, filter) }),
  }
}
