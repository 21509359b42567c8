import type { Worker } from '../cluster/worker.ts'
import type { Claiming } from '../db/claims.ts'
import type { ContactRow, Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { AppError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { findContact } from '../core/contacts/index.ts'
import { claimExecutions, dueExecutions, findExecution, findWorkflowById, moveExecution, recordStep, runStep, type ExecutionRow, type Move, type Outcome, type Step, type StepDeps, type TriggerFacts, type WorkflowRow } from '../core/workflows/index.ts'

export interface RunnerDeps extends StepDeps {
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  /** Runs in hand at once. */
  concurrency: number
  /** This process, as its claims of runs name it. */
  claimant: Claiming
}

/** Someone else moved the run while its step ran: what the step wrote is rolled back. */
class Moved extends Error {}

const done = (state: Move['state'], now: number, error: string | null = null): Move => ({
  state,
  current_step: null,
  next_run_at: null,
  step_since: now,
  wait_event: null,
  error,
  finished_at: now,
})

/** Where the outcome takes the run: on to a step (now), to its end, or to wait on this one. */
function moveOf(outcome: Outcome, step: Step, execution: ExecutionRow, now: number): Move {
  if (outcome.kind === 'exited') return done('EXITED', now)
  if (outcome.kind === 'fail') return done('FAILED', now, outcome.error)
  if (outcome.kind === 'hold') {
    return { state: 'WAITING', current_step: step.id, next_run_at: outcome.until, step_since: execution.step_since, wait_event: outcome.waitEvent ?? null }
  }
  const target = (step as unknown as Record<string, string | null | undefined>)[outcome.exit] ?? null
  if (target === null) return done('COMPLETED', now)
  return { state: 'RUNNING', current_step: target, next_run_at: now, step_since: now, wait_event: null }
}

const historyOf = (outcome: Outcome): { outcome: string; detail?: Record<string, unknown> } =>
  outcome.kind === 'exited' ? { outcome: 'exited' } : outcome.kind === 'fail' ? { outcome: 'failed', detail: { error: outcome.error, ...outcome.detail } } : outcome

/**
 * The runs the workflow runner (workflow-runner.ts) has in hand. Runs whose time has come are
 * taken, up to `concurrency` at once, and moved a step at a time: a step's effects (the email
 * queued, the contact changed) and the run's move are one transaction, written only if the run is
 * still where the step was read, so a crash or a race can never apply a step twice. A restart
 * picks up the runs still due, delays and waits at their times. Only a WEBHOOK's call happens
 * outside the transaction: it may repeat after a crash, with the same id, so receivers can tell.
 */
export function createWorkflowRuns(deps: RunnerDeps, worker: Worker) {
  const { clock, logger } = deps
  const busy = new Set<string>()

  async function step(execution: ExecutionRow, workflow: WorkflowRow, contact: ContactRow): Promise<Move> {
    const now = clock.now()
    const steps = JSON.parse(workflow.steps) as Step[]
    const current = steps.find((s) => s.id === execution.current_step)
    const trigger = JSON.parse(execution.trigger) as TriggerFacts
    const outcome: Outcome = current
      ? await runStep(deps, { execution, workflow, step: current, contact, trigger, now }).catch((error) => {
          if (error instanceof AppError) return { kind: 'fail' as const, error: `${current.id}: ${error.message}` }
          throw error
        })
      : { kind: 'fail', error: `the step ${execution.current_step} is no longer in the workflow` }
    const move = moveOf(outcome, current ?? ({ id: execution.current_step } as Step), execution, now)
    const { outcome: said, detail } = historyOf(outcome)
    await deps.write(async (trx) => {
      const written = outcome.kind === 'exit' && outcome.write ? await outcome.write(trx) : undefined
      if (!(await moveExecution(trx, execution, move, now))) throw new Moved()
      await recordStep(trx, execution.id, execution.current_step ?? '', current?.type ?? 'UNKNOWN', said, { ...detail, ...written }, now)
    })
    if (move.state === 'FAILED') logger.warn('WORKFLOW[failed]', move.error ?? '', { executionId: execution.id, workflowId: workflow.id })
    return move
  }

  /** Moves one run on for as long as its next step is due now. */
  async function advance(id: string) {
    for (;;) {
      const execution = await findExecution(deps.db, id)
      if (!execution || (execution.state !== 'RUNNING' && execution.state !== 'WAITING') || execution.next_run_at! > clock.now()) return
      const workflow = await findWorkflowById(deps.db, execution.workflow_id)
      const contact = await findContact(deps.db, execution.project_id, execution.contact_id)
      if (!workflow || !contact) return
      try {
        const move = await step(execution, workflow, contact)
        if (move.next_run_at === null || move.next_run_at > clock.now()) return
      } catch (error) {
        if (error instanceof Moved) continue
        // Not retried at every round: the run fails, and the log says why.
        logger.error('WORKFLOW', 'a step failed unexpectedly', { executionId: id, error: String((error as Error)?.stack ?? error) })
        await deps.write((trx) => moveExecution(trx, execution, done('FAILED', clock.now(), 'an internal error stopped this run'), clock.now()))
        return
      }
    }
  }

  /** Runs this process is done with, whose claims a write has yet to clear (the database did not answer). */
  const toGiveBack = new Set<string>()

  /** Clears the claims of the runs this process is done with. */
  async function giveBackRuns(ids: string[]) {
    try {
      await worker.unclaim(ids)
      worker.letGo(ids)
      for (const id of ids) toGiveBack.delete(id)
    } catch (error) {
      for (const id of ids) toGiveBack.add(id)
      logger.error('WORKFLOW', 'runs could not be given back; tried again at the next round', { error: String(error) })
    }
  }

  function start(id: string) {
    busy.add(id)
    const run = advance(id)
      .finally(() => giveBackRuns([id]))
      .catch((error) => logger.error('WORKFLOW', 'a run could not be moved on', { executionId: id, error: String((error as Error)?.stack ?? error) }))
      .finally(() => {
        busy.delete(id)
        // Freed places are taken without waiting for the engine's next round, half a batch at a
        // time: one look for due runs then serves many.
        if (busy.size <= deps.concurrency / 2) void take()
      })
    worker.track(run)
  }

  /** Fills the free places with due runs; a call while one is under way asks it to look again. */
  const take = worker.coalesced(async () => {
    if (toGiveBack.size > 0) await giveBackRuns([...toGiveBack])
    const room = deps.concurrency - busy.size
    if (room <= 0) return 0
    const due = await dueExecutions(deps.db, clock.now(), room)
    if (due.length === 0) return 0
    const claimed = await worker.claim((trx, claimant) => claimExecutions(trx, claimant, due.map((row) => row.id), clock.now()), (id) => id)
    for (const id of claimed) start(id)
    return claimed.length
  })

  return {
    /** Takes the runs that are due, as many as there is room for; how many it took. */
    take,
  }
}
