import type { Insertable, Updateable } from 'kysely'
import { containsIgnoringCase } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import { pageOf } from '../../db/paging.ts'
import type { Db, TemplateTable, TemplateType } from '../../db/schema.ts'
import type { Order } from '../../db/sorting.ts'

/** The one module that reads and writes the templates table. */

export const insertTemplate = (db: Db, row: Insertable<TemplateTable>) => db.insertInto('templates').values(row).returningAll().executeTakeFirstOrThrow()

export const findTemplateRow = (db: Db, projectId: number, id: string) =>
  db.selectFrom('templates').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export const updateTemplateRow = (db: Db, projectId: number, id: string, changes: Updateable<TemplateTable>) =>
  db.updateTable('templates').set(changes).where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst()

export const deleteTemplateRow = (db: Db, projectId: number, id: string) =>
  db.deleteFrom('templates').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export interface TemplateFilter {
  type?: TemplateType
  /** Text the name or the subject holds, any case; `%` and `_` are taken literally. */
  search?: string
}

function filtered(db: Db, projectId: number, filter: TemplateFilter) {
  let query = db.selectFrom('templates').where('project_id', '=', projectId)
  if (filter.type) query = query.where('type', '=', filter.type)
  if (filter.search) query = query.where(containsIgnoringCase(dialectOf(db), ['name', 'subject'], filter.search))
  return query
}

export const pageTemplates = (db: Db, projectId: number, filter: TemplateFilter, page: number, pageSize: number, order: Order) =>
  pageOf(filtered(db, projectId, filter), page, pageSize, order)
