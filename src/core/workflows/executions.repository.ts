import { sql, type Selectable } from 'kysely'
import { claim, type Claimant } from '../../db/claims.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db, WorkflowExecutionTable, WorkflowTable } from '../../db/schema.ts'

export type ExecutionRow = Selectable<WorkflowExecutionTable>
export type WorkflowRow = Selectable<WorkflowTable>

// Prepared: they run for every step of every run.
export const findExecution = async (db: Db, id: string): Promise<ExecutionRow | undefined> => (await selectExecution(db, { id }))[0]
const selectExecution = prepared((db, p: { id: string }) => db.selectFrom('workflow_executions').selectAll().where('id', '=', p.id))

export const findWorkflowById = async (db: Db, id: string): Promise<WorkflowRow | undefined> => (await selectWorkflow(db, { id }))[0]
const selectWorkflow = prepared((db, p: { id: string }) => db.selectFrom('workflows').selectAll().where('id', '=', p.id))

/** Live runs, written as the partial index `workflow_executions_due` is, so SQLite uses it. */
const LIVE = sql<boolean>`state IN ('RUNNING', 'WAITING')`

/** Unclaimed runs whose time has come, soonest first: read before a claim, so that an idle round writes nothing. */
export const dueExecutions = (db: Db, now: number, limit: number) => selectDue(db, { now, limit })
const selectDue = prepared((db, p: { now: number; limit: number }) =>
  db.selectFrom('workflow_executions').select('id').where(LIVE).where('next_run_at', '<=', p.now).where('claimed_by', 'is', null).orderBy('next_run_at').limit(p.limit),
)

/** Claims those of these runs still due (src/db/claims.ts): their ids. */
export async function claimExecutions(db: Db, claimant: Claimant, ids: readonly string[], now: number): Promise<string[]> {
  const claimed = await claim(db, 'workflow_executions', claimant, now, { picked: ids, still: (eb) => eb.and([LIVE, eb('next_run_at', '<=', now)]) })
    .returning('id')
    .execute()
  return claimed.map((row) => row.id)
}

/** Where a run goes next, written only if it is still at the version it was read at. */
export interface Move {
  state: ExecutionRow['state']
  current_step: string | null
  next_run_at: number | null
  step_since: number
  wait_event: string | null
  error?: string | null
  finished_at?: number | null
}

/** Moves a run on; false when someone else (an event, a cancel) moved it first. */
export async function moveExecution(db: Db, execution: Pick<ExecutionRow, 'id' | 'version'>, move: Move, now: number): Promise<boolean> {
  const moved = await update(db, { error: null, finished_at: null, ...move, id: execution.id, version: execution.version, now })
  return moved.length > 0
}
const update = prepared((db, p: Required<Move> & { id: string; version: number; now: number }) =>
  db
    .updateTable('workflow_executions')
    .set((eb) => ({
      state: p.state,
      current_step: p.current_step,
      next_run_at: p.next_run_at,
      step_since: p.step_since,
      wait_event: p.wait_event,
      error: p.error,
      finished_at: p.finished_at,
      version: eb('version', '+', 1),
      updated_at: p.now,
    }))
    .where('id', '=', p.id)
    .where('version', '=', p.version)
    .returning('id'),
)

export const recordStep = (db: Db, executionId: string, stepId: string, type: string, outcome: string, detail: Record<string, unknown> | null, at: number) =>
  insertStep(db, { executionId, stepId, type, outcome, detail: detail === null ? null : JSON.stringify(detail), at })
const insertStep = prepared((db, p: { executionId: string; stepId: string; type: string; outcome: string; detail: string | null; at: number }) =>
  db.insertInto('workflow_execution_steps').values({ execution_id: p.executionId, step_id: p.stepId, type: p.type, outcome: p.outcome, detail: p.detail, at: p.at }),
)

/** How many times the run has tried its current step since it arrived there (WEBHOOK retries). */
export async function attemptsAt(db: Db, execution: ExecutionRow): Promise<number> {
  const { n } = await db
    .selectFrom('workflow_execution_steps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('execution_id', '=', execution.id)
    .where('step_id', '=', execution.current_step!)
    .where('at', '>=', execution.step_since)
    .executeTakeFirstOrThrow()
  return Number(n)
}
