import type { Db } from '../../db/schema.ts'
import { conflict, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { refreshMemberships } from '../segments/tracking.ts'
import { emitContactChange, emitContactCreated } from '../webhooks/contact-events.ts'
import { checkContactData, decodeCursor, encodeCursor, requireAddress, toContact } from './contact.ts'
import * as repo from './contacts.repository.ts'

export interface ContactInput {
  email: string
  subscribed?: boolean
  data?: Record<string, unknown>
}

/**
 * Creates the contact or updates the one with this address (case-insensitively). `subscribed` and
 * `data` change only when given; `data` is merged and a null value removes its key. A new contact
 * without `subscribed` gets `subscribedIfNew`.
 */
export async function saveContact(db: Db, projectId: number, input: ContactInput, now: number, subscribedIfNew = true) {
  const address = requireAddress(input.email)
  if (input.data) checkContactData(input.data)
  const existing = await repo.findContactByKey(db, projectId, address.key)
  if (existing) {
    const row = await repo.updateContact(db, existing.id, { subscribed: input.subscribed, data: input.data }, now)
    await emitContactChange(db, existing, row, now)
    return { contact: toContact(row), created: false }
  }
  const row = await repo.insertContact(
    db,
    { id: newId(), project_id: projectId, email: address.address, email_key: address.key, subscribed: input.subscribed ?? subscribedIfNew },
    input.data ?? {},
    now,
  )
  // Another process stored the address since it was looked up (PostgreSQL): it is an update after all.
  if (!row) return saveContact(db, projectId, input, now, subscribedIfNew)
  await emitContactCreated(db, row, now)
  return { contact: toContact(row), created: true }
}

/** saveContact for the contacts API: tracked segments see the change in the same transaction. */
export async function upsertContact(db: Db, projectId: number, input: ContactInput, now: number) {
  const result = await saveContact(db, projectId, input, now)
  await refreshMemberships(db, projectId, [result.contact.id], now)
  return result
}

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
  await emitContactChange(db, existing, row, now)
  const updated = toContact(row)
  await refreshMemberships(db, projectId, [id], now)
  return updated
}

export async function deleteContact(db: Db, projectId: number, id: string) {
  const result = await repo.deleteContact(db, projectId, id)
  if (result.numDeletedRows === 0n) throw notFound('Contact')
  return { id, success: true, message: 'Contact deleted' }
}

export interface ContactPageQuery {
  limit: number
  cursor?: string
  subscribed?: boolean
  search?: string
}

/**
 * One page, newest first, by keyset on the time-ordered id: a contact that exists throughout the
 * paging is seen exactly once, whatever is added or deleted between pages.
 */
export async function listContacts(db: Db, projectId: number, query: ContactPageQuery) {
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
  const filter = { subscribed: query.subscribed, search: query.search?.toLowerCase() }
  const rows = await repo.pageContacts(db, projectId, filter, query.limit + 1, before)
  const hasMore = rows.length > query.limit
  const page = rows.slice(0, query.limit)
  return {
    contacts: page.map(toContact),
    cursor: hasMore ? encodeCursor(page.at(-1)!.id) : null,
    hasMore,
    ...(before === undefined && { total: await repo.countContacts(db, projectId, filter) }),
  }
}
