import type { Insertable, Selectable } from 'kysely'
import { textsIn } from '../../db/lists.ts'
import type { BookOptInTable, Db } from '../../db/schema.ts'

export type OptInRow = Selectable<BookOptInTable>

export const insertOptIn = (db: Db, row: Insertable<BookOptInTable>) => db.insertInto('book_opt_ins').values(row).execute()

export const findOptIn = (db: Db, id: string) => db.selectFrom('book_opt_ins').selectAll().where('id', '=', id).executeTakeFirst()

/** The contacts among `contactIds` with a request to this book still waiting, requested after `since`. */
export async function waitingSince(db: Db, segmentId: string, contactIds: readonly string[], since: number): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set()
  const rows = await db
    .selectFrom('book_opt_ins')
    .select('contact_id')
    .where('segment_id', '=', segmentId)
    .where('contact_id', 'in', textsIn(db, contactIds))
    .where('confirmed_at', 'is', null)
    .where('requested_at', '>', since)
    .execute()
  return new Set(rows.map((row) => row.contact_id))
}

/** Every request and consent of the contact, newest first. */
export const optInsOfContact = (db: Db, projectId: number, contactId: string) =>
  db.selectFrom('book_opt_ins').selectAll().where('project_id', '=', projectId).where('contact_id', '=', contactId).orderBy('requested_at', 'desc').execute()

/** Deletes every request and consent of the contact (an erasure). */
export const deleteOptInsOfContact = (db: Db, projectId: number, contactId: string) =>
  db.deleteFrom('book_opt_ins').where('project_id', '=', projectId).where('contact_id', '=', contactId).executeTakeFirst()

/** Marks a waiting request confirmed with its consent; false when it was no longer waiting. */
export async function confirmOptIn(db: Db, id: string, consent: { at: number; method: string; clientIp: string | null; userAgent: string | null; agreedTo: string }) {
  const result = await db
    .updateTable('book_opt_ins')
    .set({ confirmed_at: consent.at, method: consent.method, client_ip: consent.clientIp, user_agent: consent.userAgent, agreed_to: consent.agreedTo })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** The contact's latest confirmed consent to the book, if any. */
export const latestConsent = (db: Db, segmentId: string, contactId: string) =>
  db
    .selectFrom('book_opt_ins')
    .selectAll()
    .where('segment_id', '=', segmentId)
    .where('contact_id', '=', contactId)
    .where('confirmed_at', 'is not', null)
    .orderBy('confirmed_at', 'desc')
    .limit(1)
    .executeTakeFirst()

/**
 * The book's contacts still waiting to confirm, newest request first: each one's latest request,
 * unconfirmed, for a contact not listed in the book.
 */
export function pendingPage(db: Db, segmentId: string, limit: number, offset: number) {
  return pendingRows(db, segmentId)
    .select(['o.id', 'o.contact_id', 'o.email_id', 'o.requested_at'])
    .orderBy('o.requested_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute()
}

export const pendingCount = async (db: Db, segmentId: string) =>
  Number((await pendingRows(db, segmentId).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

const pendingRows = (db: Db, segmentId: string) =>
  db
    .selectFrom('book_opt_ins as o')
    .where('o.segment_id', '=', segmentId)
    .where('o.confirmed_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('book_opt_ins as later').select('later.id').whereRef('later.segment_id', '=', 'o.segment_id').whereRef('later.contact_id', '=', 'o.contact_id').whereRef('later.requested_at', '>', 'o.requested_at'))),
    )
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('segment_members as m').select('m.contact_id').whereRef('m.segment_id', '=', 'o.segment_id').whereRef('m.contact_id', '=', 'o.contact_id'))))

/** The contact's latest request to the book, confirmed or not. */
export const latestRequest = (db: Db, segmentId: string, contactId: string) =>
  db.selectFrom('book_opt_ins').selectAll().where('segment_id', '=', segmentId).where('contact_id', '=', contactId).orderBy('requested_at', 'desc').limit(1).executeTakeFirst()
