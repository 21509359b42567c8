import type { Db } from '../../db/schema.ts'
import { conflict, invalid, notFound } from '../../lib/errors.ts'
import { newId, randomToken } from '../../lib/ids.ts'
import { seal, unseal } from '../../lib/sealed.ts'
import type { WorkflowRow } from './executions.repository.ts'
import { checkSteps } from './graph.ts'
import { checkStepReferences, checkTriggerReferences } from './references.ts'
import { checkTrigger, nextTick } from './trigger.ts'
import type { ScheduleTrigger, Step, TriggerConfig, TriggerType } from './workflow.ts'
import { stepsOf, toWorkflow } from './workflow-view.ts'
import * as repo from './workflows.repository.ts'

export interface WorkflowInput {
  name: string
  description?: string | null
  triggerType: TriggerType
  triggerConfig?: unknown
  enabled?: boolean
  allowReentry?: boolean
  /** The graph; the first step is the entry. Absent or empty: no steps yet. */
  steps?: unknown[]
}

const SIGNING_PURPOSE = 'workflow-signing'

/** The secret that signs the requests of the workflow's WEBHOOK steps. */
export const signingSecretOf = (serverSecret: string, row: Pick<WorkflowRow, 'signing_secret'>): string => unseal(serverSecret, SIGNING_PURPOSE, row.signing_secret)

export async function requireWorkflow(db: Db, projectId: number, id: string): Promise<WorkflowRow> {
  const row = await repo.findWorkflow(db, projectId, id)
  if (!row) throw notFound('Workflow')
  return row
}

const checkName = (name: string) => {
  if (name.trim() === '' || name.length > 200) throw invalid('name', 'must be 1 to 200 characters')
  return name.trim()
}

const checkDescription = (description: string | null | undefined) => {
  if (description && description.length > 2000) throw invalid('description', 'must be at most 2000 characters')
  return description || null
}

/** Steps as given: none yet, or a graph checked whole. */
const checkedSteps = (input: readonly unknown[]): Step[] => (input.length === 0 ? [] : checkSteps(input))

/** A workflow runs only with steps; without, it may be kept as a draft. */
function requireRunnable(enabled: boolean, steps: readonly Step[], field: 'enabled' | 'steps'): void {
  if (!enabled || steps.length > 0) return
  throw invalid(field, field === 'enabled' ? 'a workflow without steps cannot be enabled; add steps first' : 'an enabled workflow needs at least one step; disable it first')
}

/** When a SCHEDULE workflow fires next; only an enabled one does. */
const tickOf = (type: TriggerType, config: TriggerConfig, enabled: boolean, now: number) =>
  enabled && type === 'SCHEDULE' ? nextTick(config as ScheduleTrigger, now) : null

/** A new workflow, disabled unless asked; its signing secret is answered this once. */
export async function createWorkflow(db: Db, projectId: number, input: WorkflowInput, serverSecret: string, now: number) {
  const name = checkName(input.name)
  const description = checkDescription(input.description)
  const triggerConfig = checkTrigger(input.triggerType, input.triggerConfig, 'triggerConfig', now)
  const steps = checkedSteps(input.steps ?? [])
  const enabled = input.enabled ?? false
  requireRunnable(enabled, steps, 'enabled')
  await checkTriggerReferences(db, projectId, input.triggerType, triggerConfig, now)
  await checkStepReferences(db, projectId, steps, now)
  const signingSecret = randomToken(32)
  const row = await repo.insertWorkflow(db, {
    id: newId(),
    project_id: projectId,
    name,
    description,
    enabled: enabled ? 1 : 0,
    trigger_type: input.triggerType,
    trigger_config: JSON.stringify(triggerConfig),
    allow_reentry: input.allowReentry ? 1 : 0,
    steps: JSON.stringify(steps),
    signing_secret: seal(serverSecret, SIGNING_PURPOSE, signingSecret),
    next_tick_at: tickOf(input.triggerType, triggerConfig, enabled, now),
    created_at: now,
    updated_at: now,
  })
  return { ...toWorkflow(row), signingSecret }
}

export const getWorkflow = async (db: Db, projectId: number, id: string) => toWorkflow(await requireWorkflow(db, projectId, id))

export async function listWorkflows(db: Db, projectId: number, page: number, pageSize: number) {
  const { rows, total } = await repo.pageWorkflows(db, projectId, page, pageSize)
  return { workflows: rows.map(toWorkflow), page, pageSize, total }
}

/** The fields given change; `steps` replaces the whole graph. */
export async function updateWorkflow(db: Db, projectId: number, id: string, patch: Partial<WorkflowInput>, now: number) {
  const row = await requireWorkflow(db, projectId, id)
  const { steps, ...rest } = patch
  return toWorkflow(await saveWorkflow(db, row, { ...rest, ...(steps !== undefined && { steps: checkedSteps(steps) }) }, now))
}

/** Changes the graph by `edit` (an insert, a change or a removal of one step), checked whole. */
export async function editSteps(db: Db, projectId: number, id: string, edit: (steps: Step[]) => unknown[], now: number) {
  const row = await requireWorkflow(db, projectId, id)
  return toWorkflow(await saveWorkflow(db, row, { steps: checkedSteps(edit(stepsOf(row))) }, now))
}

export async function deleteWorkflow(db: Db, projectId: number, id: string) {
  const row = await requireWorkflow(db, projectId, id)
  await repo.deleteWorkflowRow(db, row.id)
  return { id, success: true, message: 'Workflow deleted' }
}

type Changes = Omit<Partial<WorkflowInput>, 'steps'> & { steps?: Step[] }

/**
 * Writes checked changes. What they make true is checked against the project: a new trigger or
 * new steps, and everything when the workflow is being enabled. A SCHEDULE workflow's next tick
 * is set again when it is enabled or disabled or its trigger changes, and a tick half entered is
 * dropped.
 */
async function saveWorkflow(db: Db, row: WorkflowRow, changes: Changes, now: number): Promise<WorkflowRow> {
  const name = changes.name === undefined ? row.name : checkName(changes.name)
  const description = changes.description === undefined ? row.description : checkDescription(changes.description)
  const type = changes.triggerType ?? row.trigger_type
  const wasEnabled = row.enabled === 1
  const enabled = changes.enabled ?? wasEnabled
  const enabling = enabled && !wasEnabled
  const triggerChanged = changes.triggerType !== undefined || changes.triggerConfig !== undefined
  const steps = changes.steps ?? stepsOf(row)
  requireRunnable(enabled, steps, changes.steps === undefined ? 'enabled' : 'steps')
  const triggerConfig = triggerChanged || enabling ? await checkedTrigger(db, row, changes, now) : (JSON.parse(row.trigger_config) as TriggerConfig)
  if (changes.steps !== undefined || enabling) await checkStepReferences(db, row.project_id, steps, now)
  if (changes.steps !== undefined) await requireNoRunStranded(db, row.id, steps)
  return repo.updateWorkflowRow(db, row.id, {
    name,
    description,
    enabled: enabled ? 1 : 0,
    trigger_type: type,
    trigger_config: JSON.stringify(triggerConfig),
    ...(changes.allowReentry !== undefined && { allow_reentry: changes.allowReentry ? 1 : 0 }),
    steps: JSON.stringify(steps),
    // A tick being entered belongs to the schedule as it was: a new schedule starts afresh.
    ...((triggerChanged || enabled !== wasEnabled) && { next_tick_at: tickOf(type, triggerConfig, enabled, now), tick_at: null, tick_cursor: null }),
    updated_at: now,
  })
}

/** The trigger config the changes make, checked in full. */
async function checkedTrigger(db: Db, row: WorkflowRow, changes: Changes, now: number): Promise<TriggerConfig> {
  const type = changes.triggerType ?? row.trigger_type
  // A new type without a config starts from none: the old type's config is not the new one's.
  const given = changes.triggerConfig !== undefined || type !== row.trigger_type ? changes.triggerConfig : JSON.parse(row.trigger_config)
  const config = checkTrigger(type, given, 'triggerConfig', now)
  await checkTriggerReferences(db, row.project_id, type, config, now)
  return config
}

/** A step that runs are at cannot be taken away from under them. */
async function requireNoRunStranded(db: Db, workflowId: string, steps: readonly Step[]): Promise<void> {
  const ids = new Set(steps.map((step) => step.id))
  for (const [stepId, runs] of await repo.liveSteps(db, workflowId)) {
    if (ids.has(stepId)) continue
    throw conflict(
      `${runs === 1 ? '1 run of this workflow is' : `${runs} runs of this workflow are`} at step '${stepId}', which this change removes`,
      `Keep the step until they move on, or cancel them (POST /workflows/${workflowId}/cancel-all).`,
    )
  }
}
