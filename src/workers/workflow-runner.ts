import { createWorker } from '../cluster/worker.ts'
import type { Logger } from '../lib/logger.ts'
import { dueTicks, enterTick, hasUnread, scanEvents, type EventSource } from '../core/workflows/index.ts'
import { createWorkflowRuns, type RunnerDeps } from './workflow-runs.ts'

export interface EngineDeps extends RunnerDeps {
  logger: Logger
  /** How often to look for events, ticks and runs that came due without anyone waking the engine. */
  pollMs: number
}

/** Events read, and schedule contacts entered, per transaction. */
const CHUNK = 2000
const SOURCES: EventSource[] = ['events', 'email_events']

/**
 * The workflow runner: a round reads new events (starting EVENT workflows, waking runs that wait
 * for one) and enters the contacts of SCHEDULE ticks that came; due runs are taken on their
 * own as places free up, and at each round. A round repeats at once while a source had more to
 * read, otherwise at the next tick of the timer or when woken (an event was tracked, a workflow
 * triggered by hand). The runs in hand are in workflow-runs.ts.
 */
export function createWorkflowEngine(deps: EngineDeps) {
  const worker = createWorker(
    {
      tag: 'WORKFLOW',
      failed: 'engine round failed',
      round: async () => (await round()).full,
      pollMs: deps.pollMs,
      claims: { table: 'workflow_executions', claimant: deps.claimant },
    },
    deps,
  )
  const runner = createWorkflowRuns(deps, worker)

  /** One round; answers how much it did: events read and schedule contacts entered (`full`: there is more). */
  async function round(): Promise<{ did: number; full: boolean }> {
    let did = 0
    let full = false
    for (const source of SOURCES) {
      if (!(await hasUnread(deps.db, source))) continue
      const read = await deps.write((trx) => scanEvents(trx, source, CHUNK, deps.clock.now()))
      did += read
      full ||= read === CHUNK
    }
    for (const { id } of await dueTicks(deps.db, deps.clock.now())) {
      if (await deps.write((trx) => enterTick(trx, id, CHUNK, deps.clock.now()))) full = true
      did++
    }
    await runner.take()
    return { did, full }
  }

  return {
    wake: worker.wake,
    start: worker.start,
    /** Stops taking work; waits for the steps in hand; gives back what it still holds. */
    stop: worker.stop,
    /**
     * Runs rounds, and the runs they make due, until a round finds nothing and no run is due now,
     * whether or not the engine is started: for tests.
     */
    async drain() {
      await worker.idle()
      await worker.open(async () => {
        for (;;) {
          const { did } = await round()
          await worker.settle()
          if (did === 0 && (await runner.take()) === 0) return worker.settle()
        }
      })
    },
  }
}

export type WorkflowEngine = ReturnType<typeof createWorkflowEngine>
