import { sql } from 'kysely'
import type { Db } from '../../db/schema.ts'
import { jsonFromPatch, jsonMergePatch } from '../../db/json.ts'

export interface ContactFilter {
  subscribed?: boolean
  /** Lower-case text that the address must contain. */
  search?: string
}

export const findContact = (db: Db, projectId: number, id: string) =>
  db.selectFrom('contacts').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export const findContactByKey = (db: Db, projectId: number, emailKey: string) =>
  db
    .selectFrom('contacts')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('email_key', '=', emailKey)
    .executeTakeFirst()

export const insertContact = (
  db: Db,
  row: { id: string; project_id: number; email: string; email_key: string; subscribed: boolean },
  data: Record<string, unknown>,
  now: number,
) =>
  db
    .insertInto('contacts')
    .values({ ...row, subscribed: row.subscribed ? 1 : 0, data: jsonFromPatch(data), created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow()

export interface ContactChanges {
  email?: string
  email_key?: string
  subscribed?: boolean
  data?: Record<string, unknown>
}

export const updateContact = (db: Db, id: string, changes: ContactChanges, now: number) =>
  db
    .updateTable('contacts')
    .set({
      ...(changes.email !== undefined && { email: changes.email, email_key: changes.email_key }),
      ...(changes.subscribed !== undefined && { subscribed: changes.subscribed ? 1 : 0 }),
      ...(changes.data !== undefined && { data: jsonMergePatch('data', changes.data) }),
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()

export const deleteContact = (db: Db, projectId: number, id: string) =>
  db.deleteFrom('contacts').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

function filtered(db: Db, projectId: number, filter: ContactFilter) {
  let query = db.selectFrom('contacts').where('project_id', '=', projectId)
  if (filter.subscribed !== undefined) query = query.where('subscribed', '=', filter.subscribed ? 1 : 0)
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => '\\' + c)}%`
    query = query.where(sql<boolean>`email_key LIKE ${pattern} ESCAPE '\\'`)
  }
  return query
}

/** Newest first; `before` is the id the previous page ended on. */
export const pageContacts = (db: Db, projectId: number, filter: ContactFilter, limit: number, before?: string) => {
  let query = filtered(db, projectId, filter).selectAll()
  if (before) query = query.where('id', '<', before)
  return query.orderBy('id', 'desc').limit(limit).execute()
}

export const countContacts = async (db: Db, projectId: number, filter: ContactFilter) =>
  Number((await filtered(db, projectId, filter).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
