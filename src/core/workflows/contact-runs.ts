import type { Db } from '../../db/schema.ts'
import { pageOf } from '../../db/paging.ts'
import { NEWEST, ordered } from '../../db/sorting.ts'
import { findWorkflowById, type ExecutionRow } from './executions.repository.ts'
import { deleteExecutionsOfContact, executionsOfContact, historyOf } from './workflow-executions.repository.ts'
import { toExecution } from './workflow-view.ts'

/** The names of the runs' workflows, by id. */
async function workflowNames(db: Db, rows: readonly ExecutionRow[]): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  for (const id of new Set(rows.map((row) => row.workflow_id))) names.set(id, (await findWorkflowById(db, id))?.name ?? '')
  return names
}

/** A page of the contact's workflow runs, newest first, each with its workflow's name. */
export async function contactRuns(db: Db, projectId: number, contactId: string, page: number, pageSize: number) {
  const { rows, total } = await pageOf(executionsOfContact(db, projectId, contactId), page, pageSize)
  const names = await workflowNames(db, rows)
  return { executions: rows.map((row) => ({ ...toExecution(row), workflowName: names.get(row.workflow_id)! })), page, pageSize, total }
}

/** Every run of the contact with its history, newest first: what a privacy export holds. */
export async function allContactRuns(db: Db, projectId: number, contactId: string) {
  const rows = await ordered(executionsOfContact(db, projectId, contactId).selectAll(), NEWEST).execute()
  const names = await workflowNames(db, rows)
  const runs = []
  for (const row of rows) runs.push({ ...toExecution(row, await historyOf(db, row.id)), workflowName: names.get(row.workflow_id)! })
  return runs
}

/** Erases the contact's runs with their histories (an erasure of the contact); answers how many. */
export const eraseContactRuns = (db: Db, projectId: number, contactId: string) => deleteExecutionsOfContact(db, projectId, contactId)
