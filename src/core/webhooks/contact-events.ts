import type { ContactRow, Db } from '../../db/schema.ts'
import { contactFields } from '../contacts/contacts.repository.ts'
import { inList } from '../segments/segments.repository.ts'
import { emitWebhookEvent, emitWebhookEvents } from './emit.ts'
import { contactChangeTypes, contactEventData, type UnsubscribeSource } from './payload.ts'

// The data is built only when a webhook takes the event: these run for every contact written.
export const emitContactCreated = (db: Db, row: ContactRow, now: number) =>
  emitWebhookEvent(db, row.project_id, 'contact.created', () => contactEventData(row, 'contact.created'), now)

/** contact.updated when the write changed the contact, and contact.unsubscribed when it unsubscribed it. */
export async function emitContactChange(db: Db, before: ContactRow, after: ContactRow, now: number, source: UnsubscribeSource = 'update'): Promise<void> {
  for (const type of contactChangeTypes(before, after)) await emitWebhookEvent(db, after.project_id, type, () => contactEventData(after, type, source), now)
}

/** Contacts that a bulk write just unsubscribed: updated, and unsubscribed. */
export async function emitContactsUnsubscribed(db: Db, projectId: number, contactIds: readonly string[], source: UnsubscribeSource, now: number): Promise<void> {
  if (contactIds.length === 0) return
  for (const type of ['contact.updated', 'contact.unsubscribed'] as const) {
    await emitWebhookEvents(db, projectId, type, async () => (await contactsById(db, projectId, contactIds)).map((row) => contactEventData(row, type, source)), now)
  }
}

/** Contacts that a bulk write (an import chunk, a contact book's) created, and those it updated. */
export async function emitContactsWritten(db: Db, projectId: number, created: readonly string[], updated: readonly string[], now: number): Promise<void> {
  for (const [type, ids] of [['contact.created', created], ['contact.updated', updated]] as const) {
    if (ids.length === 0) continue
    await emitWebhookEvents(db, projectId, type, async () => (await contactsById(db, projectId, ids)).map((row) => contactEventData(row, type)), now)
  }
}

const contactsById = (db: Db, projectId: number, ids: readonly string[]): Promise<ContactRow[]> =>
  db.selectFrom('contacts as c').select(contactFields).where('c.project_id', '=', projectId).where('c.id', 'in', inList(db, ids)).orderBy('c.id').execute()
