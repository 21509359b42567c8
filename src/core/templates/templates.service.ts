import type { Db, TemplateTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { invalid, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { pageOf } from '../../db/paging.ts'
import { checkSubject } from '../emails/checks.ts'

export interface TemplateInput {
  name: string
  subject: string
  body: string
}

export const toTemplate = (row: TemplateTable) => ({
  id: row.id,
  name: row.name,
  subject: row.subject,
  body: row.body,
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
  const row = { id: newId(), project_id: projectId, ...input, created_at: now, updated_at: now }
  await db.insertInto('templates').values(row).execute()
  return toTemplate(row)
}

export async function findTemplate(db: Db, projectId: number, id: string) {
  const row = await db.selectFrom('templates').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound('Template')
  return row
}

export async function updateTemplate(db: Db, projectId: number, id: string, changes: Partial<TemplateInput>, now: number) {
  checkTemplate(changes)
  await findTemplate(db, projectId, id)
  const row = await db.updateTable('templates').set({ ...changes, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
  return toTemplate(row)
}

export async function deleteTemplate(db: Db, projectId: number, id: string) {
  const result = await db.deleteFrom('templates').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
  if (result.numDeletedRows === 0n) throw notFound('Template')
  return { id, success: true, message: 'Template deleted' }
}

/** One page of templates, newest first. */
export async function listTemplates(db: Db, projectId: number, page: number, pageSize: number) {
  const { rows, total } = await pageOf(db.selectFrom('templates').where('project_id', '=', projectId), page, pageSize)
  return { templates: rows.map(toTemplate), page, pageSize, total }
}
