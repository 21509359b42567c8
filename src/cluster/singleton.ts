import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import type { Db } from '../db/schema.ts'
import { holdLease, releaseLease } from './leases.ts'

/** What a singleton runs: a part that can be started and stopped, again and again. */
export interface Part {
  start(): unknown
  stop(): Promise<unknown>
}

export interface SingletonDeps {
  write: <T>(operation: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  /** This process, as leases name it. */
  owner: string
  /** How long a lease lasts unrenewed: how soon another process takes over after a crash. */
  ttlMs: number
}

/**
 * Runs `part` in one process at a time among all that share the database: the one holding the
 * lease `name`. Each process tries for it at start and every third of its lifetime; the holder
 * renews it then. A holder that cannot renew (another took the lease after it stalled, or the
 * database did not answer until the lease ran out) stops the part; a stop gives the lease up, so
 * another process takes over at its next try instead of after the lease expires.
 */
export function singleton(name: string, part: Part, deps: SingletonDeps) {
  const { clock, logger, owner, ttlMs } = deps
  let running = false
  let heldUntil = 0
  let timer: ReturnType<typeof setInterval> | undefined
  let round: Promise<void> = Promise.resolve()

  async function tryHold(): Promise<void> {
    const now = clock.now()
    let held: boolean
    try {
      held = await deps.write((trx) => holdLease(trx, name, owner, now, ttlMs))
    } catch (error) {
      logger.warn('LEASE', `${name}: the lease could not be renewed`, { error: String(error) })
      // What was held still holds until it runs out; after that another process may have it.
      held = running && clock.now() < heldUntil
    }
    if (held) heldUntil = now + ttlMs
    if (held && !running) {
      running = true
      logger.info('LEASE', `${name}: this process runs it`, { owner })
      await part.start()
    } else if (!held && running) {
      running = false
      logger.warn('LEASE', `${name}: the lease went to another process; stopping here`, { owner })
      await part.stop()
    }
  }

  const next = () => (round = round.then(tryHold).catch((error) => logger.error('LEASE', `${name}: ${String(error)}`)))

  return {
    /** Whether this process runs the part now. */
    get running() {
      return running
    },
    async start() {
      await next()
      timer = setInterval(next, Math.max(100, Math.floor(ttlMs / 3)))
      timer.unref()
    },
    async stop() {
      clearInterval(timer)
      await round
      if (!running) return
      running = false
      await part.stop()
      await deps.write((trx) => releaseLease(trx, name, owner)).catch((error) => logger.warn('LEASE', `${name}: not released`, { error: String(error) }))
    },
  }
}
