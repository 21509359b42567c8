import { sql, type Insertable, type Updateable } from 'kysely'
import type { Db, WorkflowTable } from '../../db/schema.ts'
import type { WorkflowRow } from './executions.repository.ts'
import { pageOf } from '../../db/paging.ts'

export const insertWorkflow = (db: Db, row: Insertable<WorkflowTable>): Promise<WorkflowRow> =>
  db.insertInto('workflows').values(row).returningAll().executeTakeFirstOrThrow()

export const findWorkflow = (db: Db, projectId: number, id: string): Promise<WorkflowRow | undefined> =>
  db.selectFrom('workflows').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export const updateWorkflowRow = (db: Db, id: string, changes: Updateable<WorkflowTable>): Promise<WorkflowRow> =>
  db.updateTable('workflows').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()

export const deleteWorkflowRow = (db: Db, id: string) => db.deleteFrom('workflows').where('id', '=', id).executeTakeFirst()

/** One page of the project's workflows, newest first, with the total. */
export const pageWorkflows = (db: Db, projectId: number, page: number, pageSize: number) =>
  pageOf(db.selectFrom('workflows').where('project_id', '=', projectId), page, pageSize)

/** The steps that live runs of the workflow are at, with how many are at each. */
export async function liveSteps(db: Db, workflowId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('workflow_executions')
    .select(['current_step', (eb) => eb.fn.countAll<number>().as('n')])
    .where('workflow_id', '=', workflowId)
    // Written as the partial index of live runs is, so SQLite uses it.
    .where(sql<boolean>`state IN ('RUNNING', 'WAITING')`)
    .groupBy('current_step')
    .execute()
  return new Map(rows.filter((row) => row.current_step !== null).map((row) => [row.current_step!, Number(row.n)]))
}
