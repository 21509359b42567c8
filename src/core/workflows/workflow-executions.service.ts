import type { Db } from '../../db/schema.ts'
import { conflict, invalid, notFound } from '../../lib/errors.ts'
import { requireAddress } from '../../lib/address.ts'
import { contactIdsByKey, existingContactIds } from '../contacts/index.ts'
import { enterContacts } from './entry.ts'
import * as repo from './workflow-executions.repository.ts'
import { stepsOf, toExecution } from './workflow-view.ts'
import { requireWorkflow } from './workflows.service.ts'

export async function listExecutions(db: Db, projectId: number, workflowId: string, page: number, pageSize: number) {
  await requireWorkflow(db, projectId, workflowId)
  const { rows, total } = await repo.pageExecutions(db, workflowId, page, pageSize)
  return { executions: rows.map((row) => toExecution(row)), page, pageSize, total }
}

/** A run with its history. */
export async function getExecution(db: Db, projectId: number, workflowId: string, executionId: string) {
  await requireWorkflow(db, projectId, workflowId)
  const row = await repo.findWorkflowExecution(db, workflowId, executionId)
  if (!row) throw notFound('Execution')
  return toExecution(row, await repo.historyOf(db, row.id))
}

/** Stops every run of the workflow that is running or waiting. */
export async function cancelAllExecutions(db: Db, projectId: number, workflowId: string, now: number) {
  const workflow = await requireWorkflow(db, projectId, workflowId)
  const types = new Map(stepsOf(workflow).map((step) => [step.id, step.type]))
  return { cancelled: await repo.cancelLiveExecutions(db, workflowId, types, now) }
}

export interface ManualInput {
  contactIds?: string[]
  emails?: string[]
}

/** Starts a MANUAL workflow, enabled, for contacts of the project named by id or address. */
export async function triggerWorkflow(db: Db, projectId: number, workflowId: string, input: ManualInput, now: number) {
  const workflow = await requireWorkflow(db, projectId, workflowId)
  if (workflow.trigger_type !== 'MANUAL') {
    throw conflict(`This workflow starts on its ${workflow.trigger_type} trigger, not by hand`, 'Only a MANUAL workflow is started through this endpoint.')
  }
  if (workflow.enabled !== 1) throw conflict('This workflow is disabled', `Enable it first (PATCH /workflows/${workflowId} with {"enabled": true}).`)
  const contactIds = await contactsNamed(db, projectId, input)
  return enterContacts(db, workflow, contactIds, { name: 'manual', data: null, at: now }, now)
}

/** The ids of the contacts named, each once, in the order given; any that is not a contact is a 422. */
async function contactsNamed(db: Db, projectId: number, input: ManualInput): Promise<string[]> {
  const ids = input.contactIds ?? []
  const existing = await existingContactIds(db, projectId, ids)
  const missing = ids.findIndex((id) => !existing.has(id))
  if (missing >= 0) throw invalid(`contactIds[${missing}]`, 'is not a contact of this project')
  const keys = (input.emails ?? []).map((email, i) => requireAddress(email, `emails[${i}]`).key)
  const byKey = await contactIdsByKey(db, projectId, keys)
  const unknown = keys.findIndex((key) => !byKey.has(key))
  if (unknown >= 0) throw invalid(`emails[${unknown}]`, 'is not a contact of this project')
  return [...new Set([...ids, ...keys.map((key) => byKey.get(key)!)])]
}
