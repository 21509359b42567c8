import type { Db, TemplateTable, TemplateType } from '../../db/schema.ts'
import type { Direction } from '../../db/sorting.ts'
import { isoTime } from '../../lib/clock.ts'
import { invalid, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { checkSubject } from './subject.ts'
import * as repo from './templates.repository.ts'

/** Plunk's template types: what a template is for. */
export const TEMPLATE_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const satisfies readonly TemplateType[]

/** A template made without a type is a marketing one, as in Plunk. */
export const DEFAULT_TEMPLATE_TYPE: TemplateType = 'MARKETING'

export interface TemplateInput {
  name: string
  subject: string
  body: string
  type?: TemplateType
}

export const toTemplate = (row: TemplateTable) => ({
  id: row.id,
  name: row.name,
  subject: row.subject,
  body: row.body,
  type: row.type,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

function checkTemplate(input: Partial<TemplateInput>): void {
  if (input.name !== undefined && (input.name.trim() === '' || input.name.length > 200)) throw invalid('name', 'must be 1 to 200 characters')
  if (input.subject !== undefined) checkSubject(input.subject)
  if (input.body !== undefined && input.body.trim() === '') throw invalid('body', 'must not be empty')
}

export async function createTemplate(db: Db, projectId: number, input: TemplateInput, now: number) {
  checkTemplate(input)
  const row = await repo.insertTemplate(db, {
    id: newId(),
    project_id: projectId,
    name: input.name,
    subject: input.subject,
    body: input.body,
    type: input.type ?? DEFAULT_TEMPLATE_TYPE,
    created_at: now,
    updated_at: now,
  })
  return toTemplate(row)
}

export async function findTemplate(db: Db, projectId: number, id: string) {
  const row = await repo.findTemplateRow(db, projectId, id)
  if (!row) throw notFound('Template')
  return row
}

/** Whether the project has a template with this id (a workflow's email step names one). */
export const templateExists = async (db: Db, projectId: number, id: string) => (await repo.findTemplateRow(db, projectId, id)) !== undefined

export async function updateTemplate(db: Db, projectId: number, id: string, changes: Partial<TemplateInput>, now: number) {
  checkTemplate(changes)
  const row = await repo.updateTemplateRow(db, projectId, id, { ...changes, updated_at: now })
  if (!row) throw notFound('Template')
  return toTemplate(row)
}

export async function deleteTemplate(db: Db, projectId: number, id: string) {
  const result = await repo.deleteTemplateRow(db, projectId, id)
  if (result.numDeletedRows === 0n) throw notFound('Template')
  return { id, success: true, message: 'Template deleted' }
}

/** What a template list may be sorted by, with the column each names. Each has its index (migration 0033). */
export const TEMPLATE_SORTS = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' } as const
export type TemplateSort = keyof typeof TEMPLATE_SORTS

export interface TemplatePageQuery extends repo.TemplateFilter {
  page: number
  pageSize: number
  sort?: TemplateSort
  dir?: Direction
}

/** One page of templates, newest first unless sorted otherwise; the id breaks ties. */
export async function listTemplates(db: Db, projectId: number, query: TemplatePageQuery) {
  const order = { column: TEMPLATE_SORTS[query.sort ?? 'createdAt'], dir: query.dir ?? 'desc' }
  const { rows, total } = await repo.pageTemplates(db, projectId, { type: query.type, search: query.search }, query.page, query.pageSize, order)
  return { templates: rows.map(toTemplate), page: query.page, pageSize: query.pageSize, total }
}
