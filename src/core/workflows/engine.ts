import type { Logger } from '../../lib/logger.ts'
import { createPump } from '../../lib/pump.ts'
import { createWorkflowRunner, type RunnerDeps } from './runner.ts'
import { hasUnread, scanEvents, type EventSource } from './scanner.ts'
import { dueTicks, enterTick } from './ticks.ts'

export interface EngineDeps extends RunnerDeps {
  logger: Logger
  /** How often to look for events, ticks and runs that came due without anyone waking the engine. */
  pollMs: number
}

/** Events read, and schedule contacts entered, per transaction. */
const CHUNK = 2000
const SOURCES: EventSource[] = ['events', 'email_events']

/**
 * The workflow engine: a round reads new events (starting EVENT workflows, waking runs that wait
 * for one) and enters the contacts of SCHEDULE ticks that came; the runner takes due runs on its
 * own as places free up, and at each round. A round repeats at once while a source had more to
 * read, otherwise at the next tick of the timer or when woken (an event was tracked, a workflow
 * triggered by hand).
 */
export function createWorkflowEngine(deps: EngineDeps) {
  const runner = createWorkflowRunner(deps)
  let timer: ReturnType<typeof setInterval> | undefined

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

  const pump = createPump(async () => (await round()).full, (error) => deps.logger.error('WORKFLOW', 'engine round failed', { error: String((error as Error)?.stack ?? error) }))
  let started = false

  return {
    wake: pump.wake,
    start() {
      started = true
      runner.resume()
      timer = setInterval(pump.wake, deps.pollMs)
      timer.unref()
      pump.start()
    },
    /** Stops taking work; waits for the steps in hand. */
    async stop() {
      started = false
      clearInterval(timer)
      await pump.stop()
      await runner.stop()
    },
    /**
     * Runs rounds, and the runs they make due, until a round finds nothing and no run is due now,
     * whether or not the engine is started: for tests.
     */
    async drain() {
      await pump.idle()
      runner.resume()
      for (;;) {
        const { did } = await round()
        await runner.settle()
        if (did === 0 && (await runner.take()) === 0) {
          await runner.settle()
          if (!started) await runner.stop()
          return
        }
      }
    },
  }
}

export type WorkflowEngine = ReturnType<typeof createWorkflowEngine>
