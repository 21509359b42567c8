import type { Db } from '../../db/schema.ts'
import { contactsWritten } from '../reactions.ts'
import * as repo from './contacts.repository.ts'

// What a bulk action on contacts writes, a chunk of ids at a time: the caller reads the next chunk
// with matchingContactIds and writes each in its own short transaction, so that an action over a
// million contacts never holds one transaction (nor the writer) for the whole of it.

export type ContactMatch = repo.ContactFilter

/** How many contacts one chunk of a bulk action writes in one transaction. */
export const BULK_CHUNK = 1000

/** The ids of the contacts `match` selects, in id order, after `afterId` ('' for the first chunk). */
export const matchingContactIds = (db: Db, projectId: number, match: ContactMatch, afterId: string, limit = BULK_CHUNK): Promise<string[]> =>
  repo.matchingIds(db, projectId, { ...match, search: match.search?.toLowerCase() }, afterId, limit)

/**
 * Unsubscribes those of these contacts that are subscribed (contact.updated and contact.unsubscribed
 * saying `manual`, segment membership); answers how many it changed.
 */
export async function unsubscribeContacts(db: Db, projectId: number, ids: readonly string[], now: number): Promise<number> {
  const changed = await repo.unsubscribeByIds(db, projectId, ids, now)
  if (changed.length > 0) await contactsWritten(db, projectId, { updated: changed, unsubscribed: changed }, now, 'manual')
  return changed.length
}

/** Deletes these contacts of the project, with their events, as deleting one does; answers how many there were. */
export const deleteContacts = (db: Db, projectId: number, ids: readonly string[]): Promise<number> => repo.deleteByIds(db, projectId, ids)
