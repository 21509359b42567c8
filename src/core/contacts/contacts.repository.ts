import { sql, type Expression, type SqlBool } from 'kysely'
import { likeIgnoringCase, likePattern } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import type { ContactRow, Db } from '../../db/schema.ts'
import { jsonFromPatch, jsonMergePatch, jsonText } from '../../db/json.ts'
import { textsIn } from '../../db/lists.ts'
import { prepared } from '../../db/prepared.ts'
import { after, ordered, type Order } from '../../db/sorting.ts'
import { contactFields } from './contact.ts'

/** The contact's columns as contactFields reads them, for RETURNING, where the table has no alias. */
const returnedFields = ['id', 'project_id', 'email', 'email_key', 'subscribed', jsonText('data').as('data'), 'created_at', 'updated_at'] as const

export interface ContactFilter {
  subscribed?: boolean
  /** Lower-case text that the address must contain. */
  search?: string
  /** A condition over the contacts' alias `c` that a higher module compiled (a segment condition). */
  where?: Expression<SqlBool>
}

export const findContact = async (db: Db, projectId: number, id: string): Promise<ContactRow | undefined> => (await selectById(db, { projectId, id }))[0]

const selectById = prepared((db, p: { projectId: number; id: string }) =>
  db.selectFrom('contacts as c').select(contactFields).where('c.project_id', '=', p.projectId).where('c.id', '=', p.id),
)

/** The project's contacts with these ids, in id order. */
export const contactsByIds = (db: Db, projectId: number, ids: readonly string[]): Promise<ContactRow[]> =>
  db.selectFrom('contacts as c').select(contactFields).where('c.project_id', '=', projectId).where('c.id', 'in', textsIn(db, ids)).orderBy('c.id').execute()

/** Of these address keys, those whose contact is subscribed now, each with the contact's id. */
export async function subscribedByKey(db: Db, projectId: number, keys: readonly string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map()
  const rows = await db
    .selectFrom('contacts')
    .select(['id', 'email_key'])
    .where('project_id', '=', projectId)
    .where('email_key', 'in', textsIn(db, keys))
    .where('subscribed', '=', 1)
    .execute()
  return new Map(rows.map((row) => [row.email_key, row.id]))
}

/** Unsubscribes the project's contact with this address when it is subscribed; answers the ids it changed. */
export async function unsubscribeByKey(db: Db, projectId: number, emailKey: string, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('contacts')
    .set({ subscribed: 0, updated_at: now })
    .where('project_id', '=', projectId)
    .where('email_key', '=', emailKey)
    .where('subscribed', '=', 1)
    .returning('id')
    .execute()
  return rows.map((row) => row.id)
}

export const findContactByKey = async (db: Db, projectId: number, emailKey: string): Promise<ContactRow | undefined> =>
  (await selectByKey(db, { projectId, emailKey }))[0]

const selectByKey = prepared((db, p: { projectId: number; emailKey: string }) =>
  db.selectFrom('contacts as c').select(contactFields).where('c.project_id', '=', p.projectId).where('c.email_key', '=', p.emailKey),
)

export interface NewContact {
  id: string
  project_id: number
  email: string
  email_key: string
  subscribed: boolean
}

/** The new contact, or undefined when another transaction has just stored its address (PostgreSQL's many writers). */
export const insertContact = async (db: Db, row: NewContact, data: Record<string, unknown>, now: number): Promise<ContactRow | undefined> =>
  (await insert(db, { ...row, subscribed: row.subscribed ? 1 : 0, data: JSON.stringify(data), now }))[0]

const insert = prepared((db, p: Omit<NewContact, 'subscribed'> & { subscribed: number; data: string; now: number }) =>
  db
    .insertInto('contacts')
    .values({
      id: p.id,
      project_id: p.project_id,
      email: p.email,
      email_key: p.email_key,
      subscribed: p.subscribed,
      data: jsonFromPatch(p.data),
      created_at: p.now,
      updated_at: p.now,
    })
    .onConflict((oc) => oc.columns(['project_id', 'email_key']).doNothing())
    .returning(returnedFields),
)

export interface ContactChanges {
  email?: string
  email_key?: string
  subscribed?: boolean
  data?: Record<string, unknown>
}

/** Changes what is given and leaves the rest: one statement shape for every combination. */
export const updateContact = async (db: Db, id: string, changes: ContactChanges, now: number) =>
  (
    await update(db, {
      id,
      email: changes.email ?? null,
      email_key: changes.email_key ?? null,
      subscribed: changes.subscribed === undefined ? null : changes.subscribed ? 1 : 0,
      data: changes.data === undefined ? null : JSON.stringify(changes.data),
      now,
    })
  )[0]!

const update = prepared(
  (db, p: { id: string; email: string | null; email_key: string | null; subscribed: number | null; data: string | null; now: number }) =>
    db
      .updateTable('contacts')
      .set({
        email: sql<string>`coalesce(${p.email}, email)`,
        email_key: sql<string>`coalesce(${p.email_key}, email_key)`,
        subscribed: sql<number>`coalesce(${p.subscribed}, subscribed)`,
        data: jsonMergePatch('data', p.data),
        updated_at: p.now,
      })
      .where('id', '=', p.id)
      .returning(returnedFields),
)

export const deleteContact = (db: Db, projectId: number, id: string) =>
  db.deleteFrom('contacts').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

/** The project's contacts (`c`) that the filter selects, its search already in lower case. */
export function filteredContacts(db: Db, projectId: number, filter: ContactFilter) {
  let query = db.selectFrom('contacts as c').where('c.project_id', '=', projectId)
  if (filter.subscribed !== undefined) query = query.where('c.subscribed', '=', filter.subscribed ? 1 : 0)
  if (filter.search) {
    query = query.where(likeIgnoringCase(dialectOf(db), sql.ref('c.email_key'), likePattern(filter.search, 'contains')))
  }
  if (filter.where) query = query.where(filter.where)
  return query
}

/** In `order`, from the row after `from` (where the previous page ended) when given. */
export const pageContacts = (db: Db, projectId: number, filter: ContactFilter, limit: number, order: Order, from?: { value: string | number; id: string }) => {
  let query = filteredContacts(db, projectId, filter).select(contactFields)
  if (from) query = query.where(after(order, from, 'c'))
  return ordered(query, order, 'c').limit(limit).execute()
}

export const countContacts = async (db: Db, projectId: number, filter: ContactFilter) =>
  Number((await filteredContacts(db, projectId, filter).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

/** The ids of the contacts the filter matches, in id order, after `afterId`: a bulk action's next chunk. */
export const matchingIds = async (db: Db, projectId: number, filter: ContactFilter, afterId: string, limit: number): Promise<string[]> =>
  (await filteredContacts(db, projectId, filter).select('c.id').where('c.id', '>', afterId).orderBy('c.id').limit(limit).execute()).map((row) => row.id)

/** Unsubscribes those of the project's contacts with these ids that are subscribed; answers the ids it changed. */
export async function unsubscribeByIds(db: Db, projectId: number, ids: readonly string[], now: number): Promise<string[]> {
  if (ids.length === 0) return []
  const rows = await db
    .updateTable('contacts')
    .set({ subscribed: 0, updated_at: now })
    .where('project_id', '=', projectId)
    .where('id', 'in', textsIn(db, ids))
    .where('subscribed', '=', 1)
    .returning('id')
    .execute()
  return rows.map((row) => row.id)
}

/** Deletes the project's contacts with these ids; answers how many there were. */
export async function deleteByIds(db: Db, projectId: number, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0
  const result = await db.deleteFrom('contacts').where('project_id', '=', projectId).where('id', 'in', textsIn(db, ids)).executeTakeFirst()
  return Number(result.numDeletedRows)
}
