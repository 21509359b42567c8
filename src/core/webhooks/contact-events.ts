import type { ContactRow, Db } from '../../db/schema.ts'
import type { UnsubscribeSource } from '../contacts/contact.ts'
import { emitWebhookEvent, emitWebhookEvents } from './emit.ts'
import { contactChangeTypes, contactDeletedData, contactEventData } from './payload.ts'

/** contact.deleted: its id, and its address unless it was erased (`email` null). */
export const emitContactDeleted = (db: Db, projectId: number, contact: { id: string; email: string | null }, now: number) =>
  emitWebhookEvent(db, projectId, 'contact.deleted', contactDeletedData(contact), now)

// The data is built only when a webhook takes the event: these run for every contact written.
export const emitContactCreated = (db: Db, row: ContactRow, now: number) =>
  emitWebhookEvent(db, row.project_id, 'contact.created', () => contactEventData(row, 'contact.created'), now)

/** contact.updated when the write changed the contact, and contact.unsubscribed when it unsubscribed it. */
export async function emitContactChange(db: Db, before: ContactRow, after: ContactRow, now: number, source: UnsubscribeSource = 'update'): Promise<void> {
  for (const type of contactChangeTypes(before, after)) await emitWebhookEvent(db, after.project_id, type, () => contactEventData(after, type, source), now)
}

/** Contacts a bulk write created, updated, and (among those updated) unsubscribed, by id. */
export interface ContactIds {
  created?: readonly string[]
  updated?: readonly string[]
  unsubscribed?: readonly string[]
}

/**
 * The events of contacts written in bulk (an import chunk, a contact book's, a suppression):
 * contact.created, contact.updated, and contact.unsubscribed saying how. `load` reads the
 * contacts as they are now, and is called only when some webhook takes the type.
 */
export async function emitContactsWritten(
  db: Db,
  projectId: number,
  ids: ContactIds,
  source: UnsubscribeSource,
  now: number,
  load: (ids: readonly string[]) => Promise<ContactRow[]>,
): Promise<void> {
  const kinds = [['contact.created', ids.created], ['contact.updated', ids.updated], ['contact.unsubscribed', ids.unsubscribed]] as const
  for (const [type, some] of kinds) {
    if (!some || some.length === 0) continue
    await emitWebhookEvents(db, projectId, type, async () => (await load(some)).map((row) => contactEventData(row, type, source)), now)
  }
}
