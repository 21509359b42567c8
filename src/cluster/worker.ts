import { giveBack, unclaim, type Claiming, type WorkTable } from '../db/claims.ts'
import type { Write } from '../db/locking.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { coalesce } from '../lib/coalesce.ts'
import type { Logger } from '../lib/logger.ts'
import { createPump } from '../lib/pump.ts'

/*
 * The one lifecycle of a loop that works in the background (src/workers/), as River's
 * `BaseStartStop` is for its workers: start, the pump of rounds (a timer and wake-ups), the
 * claim of work rows and the holding of what was claimed (so that the claim keeper renews its
 * leases), letting go of what was settled, the work in flight that a stop waits for, and the
 * give-back at the stop. Each worker declares only its table, its claim, its round and what it
 * does with what it took; what "given back" writes on its rows is said once per table in
 * src/db/claims.ts, as any process may give back any table's expired rows.
 */

type Id = string | number

export interface WorkerDeps {
  write: Write
  clock: Clock
  logger: Logger
}

/** A timer of a worker's own besides its rounds' (a pruning, a check of its own). */
export interface WorkerTimer {
  everyMs: number
  /** The first run comes this soon after the start instead of after `everyMs`. */
  firstAfterMs?: number
  run: () => void
}

export interface WorkerSpec {
  /** The tag of its log lines. */
  tag: string
  /** What its failed round says in the log. */
  failed: string
  /** One round of its work; answers whether another should follow at once. */
  round: () => Promise<boolean>
  /**
   * How often a round runs unasked: work that came due, a wake-up that never came. Without it,
   * rounds run only when woken (a worker whose rows wait only when someone writes them).
   */
  pollMs?: number
  /** Whether `start` runs a round at once (the default), or leaves the first to the timer. */
  roundAtStart?: boolean
  timers?: readonly WorkerTimer[]
  /** What its stop writes once the work in flight has settled, before what it holds is given back. */
  finish?: () => Promise<void>
  /** The rows it claims, if it claims any: the table, and this process as claims name it. */
  claims?: {
    table: WorkTable
    claimant: Claiming
    /**
     * Whether its stop gives back what this process still holds of the table (the default). A
     * worker whose rows are also taken on request, outside its rounds, leaves them to their
     * leases: a stop of the worker must not cut a request's work.
     */
    givesBack?: boolean
  }
}

const describe = (error: unknown) => String((error as Error)?.stack ?? error)

/**
 * A worker: `start` and `stop` (again and again), `wake` for a round now, and what its round
 * uses to claim, hold and let go of rows, and to track work in flight.
 */
export function createWorker(spec: WorkerSpec, deps: WorkerDeps) {
  const { logger, clock } = deps
  const claims = spec.claims
  const inFlight = new Set<Promise<unknown>>()
  let timers: Array<ReturnType<typeof setTimeout>> = []
  let started = false
  /** Whether work may be taken: once started, or while a test drains it. */
  let taking = false
  const failed = (error: unknown) => logger.error(spec.tag, spec.failed, { error: describe(error) })
  const pump = createPump(spec.round, failed)

  function claiming(): NonNullable<WorkerSpec['claims']> {
    if (!claims) throw new Error(`${spec.tag}: this worker claims no rows`)
    return claims
  }

  /** Work under way until `work` settles: a stop waits for it. */
  function track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => {},
      () => {},
    )
    inFlight.add(settled)
    void settled.finally(() => inFlight.delete(settled))
    return work
  }

  /** Resolves when the work in flight, and the work it led to, has settled. */
  async function settle(): Promise<void> {
    while (inFlight.size > 0) await Promise.race(inFlight)
  }

  return {
    wake: pump.wake,
    get started() {
      return started
    },
    /** Whether work may be taken now (false once stopped). */
    get taking() {
      return taking
    },
    start(): void {
      started = true
      taking = true
      const every = (ms: number, run: () => void) => setInterval(run, ms)
      timers = spec.pollMs === undefined ? [] : [every(spec.pollMs, pump.wake)]
      for (const timer of spec.timers ?? []) {
        timers.push(every(timer.everyMs, timer.run))
        if (timer.firstAfterMs !== undefined) timers.push(setTimeout(timer.run, timer.firstAfterMs))
      }
      for (const timer of timers) timer.unref()
      pump.start(spec.roundAtStart !== false)
    },
    /** Takes no more work; waits for the round and the work in flight; gives back what is still held. */
    async stop(): Promise<void> {
      started = false
      taking = false
      for (const timer of timers) clearTimeout(timer)
      await pump.stop()
      await settle()
      await spec.finish?.()
      if (!claims || claims.givesBack === false) return
      await deps.write((trx) => giveBack(trx, claims.table, claims.claimant.owner, clock.now())).finally(() => claims.claimant.held.clear(claims.table))
    },
    /** Resolves when no round is under way. */
    idle: pump.idle,
    track,
    settle,
    /** Whether work is in flight now. */
    get busy(): boolean {
      return inFlight.size > 0
    },
    /** `once` called from anywhere, never two at once, tracked, and nothing once stopped (src/lib/coalesce.ts). */
    coalesced(once: () => Promise<number>) {
      const call = coalesce(once, () => !taking)
      return Object.assign(() => track(call()), { pending: call.pending })
    },
    /**
     * Claims rows by `statement` (src/db/claims.ts), committed on its own, and holds what it
     * answered: the claim keeper renews their leases until they are let go.
     */
    async claim<R>(statement: (trx: Db, claimant: Claiming) => Promise<R[]>, idOf: (row: R) => Id): Promise<R[]> {
      const { table, claimant } = claiming()
      const claimed = await claimant.write((trx) => statement(trx, claimant))
      claimant.held.hold(table, claimed.map(idOf))
      return claimed
    },
    /** Stops holding these rows: their settling statement committed (or their lease is left to run out). */
    letGo(ids: readonly Id[]): void {
      const { table, claimant } = claiming()
      claimant.held.letGo(table, ids)
    },
    /** Clears this process's claim of these rows, as a settling statement does. */
    unclaim(ids: readonly Id[]): Promise<number> {
      const { table, claimant } = claiming()
      return deps.write((trx) => unclaim(trx, table, claimant.owner, ids))
    },
    /** The rows of its table this process holds. */
    held(): Id[] {
      const { table, claimant } = claiming()
      return claimant.held.ids(table)
    },
    /** This process, as its claims name it. */
    get owner(): string {
      return claiming().claimant.owner
    },
    /**
     * Runs `work` with the worker taking work whether or not it is started, for tests that drain
     * it: afterwards a worker that is not started takes nothing again.
     */
    async open<T>(work: () => Promise<T>): Promise<T> {
      taking = true
      try {
        return await work()
      } finally {
        if (!started) taking = false
      }
    },
  }
}

export type Worker = ReturnType<typeof createWorker>
