import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Logger } from '../../lib/logger.ts'
import { pruneBodies, retentionCutoff, type PruneResult } from './retention.ts'

export interface PrunerDeps {
  db: Db
  /** The server's group-commit writer. */
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  /** Days bodies are kept; 0 keeps them forever. */
  retentionDays: number
}

const INTERVAL_MS = 60 * 60_000
/** The first pass waits a little, so that it does not compete with a start's own work. */
const FIRST_PASS_MS = 60_000

/**
 * Prunes old email bodies on a timer: a pass a minute after the start, then hourly. It keeps no
 * state of its own: what is left to prune is read from the rows each time, so a restart loses
 * nothing and a pass stopped half-way is finished by the next.
 */
export function createBodyPruner(deps: PrunerDeps) {
  const { logger } = deps
  const timers: Array<ReturnType<typeof setTimeout>> = []
  let pass: Promise<PruneResult> | undefined
  let stopping = false

  /** One pass over every body; a pass asked for while one runs is that one. */
  function tick(): Promise<PruneResult> {
    if (deps.retentionDays === 0) return Promise.resolve({ emails: 0, bytes: 0 })
    pass ??= (async () => {
      const cutoff = retentionCutoff(deps.clock.now(), deps.retentionDays)
      const result = await pruneBodies(deps.db, cutoff, { write: deps.write, stopping: () => stopping })
      if (result.emails > 0) logger.info('PRUNE', `bodies of ${result.emails} emails older than ${deps.retentionDays} days deleted`, { ...result })
      return result
    })().finally(() => (pass = undefined))
    return pass
  }

  const run = () => void tick().catch((error) => logger.error('PRUNE', 'pruning email bodies failed', { error: String(error) }))

  return {
    tick,
    start() {
      if (deps.retentionDays === 0) return
      stopping = false
      timers.push(setTimeout(run, FIRST_PASS_MS), setInterval(run, INTERVAL_MS))
      for (const timer of timers) timer.unref()
    },
    /** Ends the pass under way after its current chunk. */
    async stop() {
      stopping = true
      for (const timer of timers.splice(0)) clearTimeout(timer)
      await pass?.catch(() => {})
    },
  }
}

export type BodyPruner = ReturnType<typeof createBodyPruner>
