import type { Selectable } from 'kysely'
import type { WorkflowExecutionStepTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import type { ExecutionRow, WorkflowRow } from './executions.repository.ts'
import type { Step, TriggerConfig } from './workflow.ts'

const timeOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms))

/** A workflow's stored steps; the first is the entry. */
export const stepsOf = (row: Pick<WorkflowRow, 'steps'>): Step[] => JSON.parse(row.steps)

/** The Workflow of the interface, with its steps. Its signing secret is never part of it. */
export function toWorkflow(row: WorkflowRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled === 1,
    triggerType: row.trigger_type,
    triggerConfig: JSON.parse(row.trigger_config) as TriggerConfig,
    allowReentry: row.allow_reentry === 1,
    projectId: String(row.project_id),
    steps: stepsOf(row),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

export type Workflow = ReturnType<typeof toWorkflow>

type HistoryRow = Selectable<WorkflowExecutionStepTable>

/** What started a run, its time shown like every other. */
function triggerOf(json: string): { name: string; data: unknown; at: string | null } {
  const trigger = JSON.parse(json) as { name: string; data?: unknown; at?: number }
  return { name: trigger.name, data: trigger.data ?? null, at: typeof trigger.at === 'number' ? isoTime(trigger.at) : null }
}

/** A run of a workflow; with `history`, what each step it passed did, in order. */
export function toExecution(row: ExecutionRow, history?: HistoryRow[]) {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    contactId: row.contact_id,
    state: row.state,
    currentStep: row.current_step,
    nextRunAt: timeOrNull(row.next_run_at),
    trigger: triggerOf(row.trigger),
    error: row.error,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    finishedAt: timeOrNull(row.finished_at),
    ...(history && {
      history: history.map((entry) => ({
        stepId: entry.step_id,
        type: entry.type,
        outcome: entry.outcome,
        detail: entry.detail === null ? null : (JSON.parse(entry.detail) as unknown),
        at: isoTime(entry.at),
      })),
    }),
  }
}

export type Execution = ReturnType<typeof toExecution>
