import { contendedWrite, type Write } from '../db/locking.ts'
import type { Db } from '../db/schema.ts'
import { FAILURE_WINDOW, type FailureCounts } from '../lib/auth-throttle.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import { pruneRateLimits } from './rate-limits.repository.ts'
import { createSharedBucket } from './shared-bucket.ts'
import { createSharedWindow, type SharedWindow } from './shared-window.ts'
import type { StepShape } from './window-steps.ts'

/** How often leftover tokens are given back (and forgotten keys let go). */
const SWEEP_MS = 1000
/** How often this process deletes rows that no longer count. */
const PRUNE_MS = 60_000
/**
 * A login's read of its address's failures is trusted this long: a failure through another
 * process slows logins here at most this much later (one through this process, at once).
 */
const FAILURES_FRESH_MS = 1000

export interface RateLimitDeps {
  db: Db
  /** The group-commit writer's `run`. */
  write: Write
  clock: Clock
  logger: Logger
}

/**
 * The rate limits every process on the database shares (migration 0026): the API's request
 * budgets (sliding windows, `window`), the login throttle's failures (`loginFailures`) and each
 * project's send rate (a token bucket, `sendRate`). Three processes together allow what one
 * allows; the bounds are stated in shared-window.ts and bucket-state.ts. They take the
 * processes' clocks to agree (one machine, or hosts kept by NTP): each counts by its own, and a
 * clock d ms off counts its requests d ms early or late. Once started, a timer gives back tokens
 * left unspent each second and deletes rows that no longer count.
 */
export function createRateLimits(deps: RateLimitDeps) {
  const { db, clock, logger } = deps
  const shared = { db, write: contendedWrite(db, deps.write), clock }
  const windows = new Map<string, SharedWindow>()
  const window = (name: string, shape: StepShape): SharedWindow => {
    let found = windows.get(name)
    if (!found) windows.set(name, (found = createSharedWindow(name, shape, shared)))
    return found
  }
  const failures = window('login-failures', FAILURE_WINDOW)
  let timer: ReturnType<typeof setInterval> | undefined
  let sweeping: Promise<void> = Promise.resolve()
  let prunedAt = clock.now()

  async function sweep(options: { all?: boolean } = {}) {
    for (const each of windows.values()) await each.sweep(options)
    if (clock.now() - prunedAt < PRUNE_MS) return
    prunedAt = clock.now()
    await shared.write((trx) => pruneRateLimits(trx, prunedAt))
  }
  const next = (options: { all?: boolean } = {}) => (sweeping = sweeping.then(() => sweep(options)).catch((error) => logger.warn('RATELIMIT', 'leftover tokens not given back yet', { error: String(error) })))

  return {
    window,
    loginFailures: {
      count: (address) => failures.count(address, FAILURES_FRESH_MS),
      add: (address) => failures.add(address),
    } satisfies FailureCounts,
    sendRate: createSharedBucket('send-rate', shared),
    start() {
      timer = setInterval(() => next(), SWEEP_MS)
      timer.unref()
    },
    /** Stops the timer and gives back what this process holds unspent, for the others. */
    async stop() {
      clearInterval(timer)
      await next({ all: true })
    },
  }
}

export type RateLimits = ReturnType<typeof createRateLimits>
