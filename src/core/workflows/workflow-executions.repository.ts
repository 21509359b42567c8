import { sql } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import type { Db } from '../../db/schema.ts'
import type { ExecutionRow } from './executions.repository.ts'
import { pageOf } from '../../db/paging.ts'

/** One page of a workflow's runs, newest first, with the total. */
export const pageExecutions = (db: Db, workflowId: string, page: number, pageSize: number): Promise<{ rows: ExecutionRow[]; total: number }> =>
  pageOf(db.selectFrom('workflow_executions').where('workflow_id', '=', workflowId), page, pageSize)

export const findWorkflowExecution = (db: Db, workflowId: string, id: string): Promise<ExecutionRow | undefined> =>
  db.selectFrom('workflow_executions').selectAll().where('workflow_id', '=', workflowId).where('id', '=', id).executeTakeFirst()

/** What each step of a run did, in order. */
export const historyOf = (db: Db, executionId: string) =>
  db.selectFrom('workflow_execution_steps').selectAll().where('execution_id', '=', executionId).orderBy('id').execute()

/**
 * Cancels every live run of a workflow. The version moves, so a step the runner is in the middle
 * of does not move a cancelled run on; each gets a 'cancelled' row in its history.
 */
export async function cancelLiveExecutions(db: Db, workflowId: string, stepTypes: ReadonlyMap<string, string>, now: number): Promise<number> {
  const cancelled = await db
    .updateTable('workflow_executions')
    .set((eb) => ({ state: 'CANCELLED' as const, next_run_at: null, wait_event: null, finished_at: now, updated_at: now, version: eb('version', '+', 1) }))
    .where('workflow_id', '=', workflowId)
    // Written as the partial index of live runs is, so SQLite uses it.
    .where(sql<boolean>`state IN ('RUNNING', 'WAITING')`)
    .returning(['id', 'current_step'])
    .execute()
  const history = cancelled.map((run) => ({
    execution_id: run.id,
    step_id: run.current_step ?? '',
    type: (run.current_step && stepTypes.get(run.current_step)) ?? '',
    outcome: 'cancelled',
    detail: null,
    at: now,
  }))
  await insertMany(db, 'workflow_execution_steps', ['execution_id', 'step_id', 'type', 'outcome', 'detail', 'at'], history)
  return cancelled.length
}

/** The contact's runs of every workflow of the project, as a query to page or read whole. */
export const executionsOfContact = (db: Db, projectId: number, contactId: string) =>
  db.selectFrom('workflow_executions').where('project_id', '=', projectId).where('contact_id', '=', contactId)

/** Deletes the contact's runs and their histories (an erasure); answers how many runs. */
export async function deleteExecutionsOfContact(db: Db, projectId: number, contactId: string): Promise<number> {
  const ids = executionsOfContact(db, projectId, contactId).select('id')
  await db.deleteFrom('workflow_execution_steps').where('execution_id', 'in', ids).execute()
  const result = await db.deleteFrom('workflow_executions').where('project_id', '=', projectId).where('contact_id', '=', contactId).executeTakeFirst()
  return Number(result.numDeletedRows)
}
