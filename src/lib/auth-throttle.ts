import type { Clock } from './clock.ts'
import { clientKey } from './ip.ts'
import { createSlidingWindow } from './sliding-window.ts'

const FREE_FAILURES = 3
const MAX_DELAY_MS = 8000
const MAX_ADDRESSES = 10_000
/** Logins from one slowed address that may wait at once: the most it can try in one delay. */
export const MAX_WAITING = 8

/** Failures are counted over the last ten minutes, in steps of ten seconds. */
export const FAILURE_WINDOW = { windowMs: 10 * 60_000, stepMs: 10_000 }

/**
 * Where failed logins are counted, per client address: in this process's memory (`localFailures`),
 * or in the database for every process on it (src/cluster/rate-limits.ts).
 */
export interface FailureCounts {
  /** Failures of the address over FAILURE_WINDOW. */
  count(address: string): number | Promise<number>
  add(address: string): void | Promise<void>
}

/** Failures counted in this process alone. */
export function localFailures(clock: Clock): FailureCounts {
  const window = createSlidingWindow(clock, { ...FAILURE_WINDOW, maxKeys: MAX_ADDRESSES })
  return { count: (address) => window.count(address), add: (address) => void window.take(address, Number.MAX_SAFE_INTEGER) }
}

/** How a login ended, for `run`: whether its error is a failed login (a wrong key, password or code). */
export type IsFailure = (error: unknown) => boolean

/**
 * Failed logins per client address, over the last ten minutes, for HTTP and SMTP alike. After
 * three, each login from the address waits before its key is checked, twice as long at each
 * failure up to 8 s, whether the key is right or wrong: a guesser cannot tell a quick answer from a
 * slow one, and a right key is slowed, never refused for its address's failures. Nothing locks an
 * address out. Failures are forgotten as they leave the ten minutes, not when a right key comes:
 * otherwise a key holder could wipe its own address's record between guesses.
 *
 * A login counts from the moment it starts, not when its failure is known: it waits as its key's
 * failures plus the logins under that key still unanswered say. A burst sent at once therefore
 * sees itself: the first three are checked at once, the next wait (0.5 s, 1 s, ...), and since a
 * slowed key has at most MAX_WAITING logins waiting in this process, every other one is turned
 * away before its key is looked at, and so tells nothing of that key. A burst of any size reaches
 * the check at most FREE_FAILURES + MAX_WAITING times.
 */
export function createAuthThrottle(clock: Clock, failures: FailureCounts = localFailures(clock)) {
  // Only keys with logins under way (or waiting) now: each entry goes when its last one ends.
  const started = new Map<string, number>()
  const waiting = new Map<string, number>()
  const delayFor = (count: number) => (count < FREE_FAILURES ? 0 : Math.min(MAX_DELAY_MS, 250 * 2 ** (count - FREE_FAILURES + 1)))
  /**
   * A login is counted under each of its keys: its address, and for a console sign-in the
   * account too (`account <email>`), so that guesses at one account from many addresses are
   * slowed like guesses from one address. It waits as its most-failed key says.
   */
  const keysOf = (addresses: readonly string[]) => [...new Set(addresses.map(clientKey))]
  const delayOf = async (keys: readonly string[], ahead: readonly number[]): Promise<number> =>
    Math.max(0, ...(await Promise.all(keys.map(async (key, i) => delayFor((await failures.count(key)) + ahead[i]!)))))
  const fail = async (keys: readonly string[]): Promise<void> => {
    for (const key of keys) await failures.add(key)
  }
  /** Waits `ms` under `keys`; false, at once, when MAX_WAITING logins under one of them wait already. */
  async function wait(keys: readonly string[], ms: number): Promise<boolean> {
    if (keys.some((key) => (waiting.get(key) ?? 0) >= MAX_WAITING)) return false
    count(waiting, keys, 1)
    try {
      await Bun.sleep(ms)
    } finally {
      count(waiting, keys, -1)
    }
    return true
  }
  return {
    /** How long the next login under `addresses` waits before its key is checked (ms), logins under way aside. */
    delay: (...addresses: string[]) => {
      const keys = keysOf(addresses)
      return delayOf(keys, keys.map(() => 0))
    },
    /**
     * One login under `addresses`: counted at once, then it waits as the throttle says and runs
     * `check`, whose error counts as a failure when `isFailure` says so. Turned away unchecked,
     * with `refuse(delay)`, when MAX_WAITING logins wait under one of its keys. A `remembered`
     * login (a key this process accepted a moment ago) is no guess: it is not counted as under
     * way, so an application's parallel requests do not slow each other while its address has no
     * failures; it waits as any other login in its place would.
     */
    async run<T>(addresses: string[], check: () => Promise<T>, isFailure: IsFailure, refuse: (delayMs: number) => Error, remembered = false): Promise<T> {
      const keys = keysOf(addresses)
      // Read and counted before anything is awaited: each of a burst sees the ones sent before it.
      // A remembered key waits as a guess in its place would (its Retry-After tells nothing); it only adds no count.
      const ahead = keys.map((key) => started.get(key) ?? 0)
      if (!remembered) count(started, keys, 1)
      try {
        const ms = await delayOf(keys, ahead)
        if (ms > 0 && !(await wait(keys, ms))) throw refuse(ms)
        try {
          return await check()
        } catch (error) {
          if (isFailure(error)) await fail(keys)
          throw error
        }
      } finally {
        if (!remembered) count(started, keys, -1)
      }
    },
    fail: (...addresses: string[]) => fail(keysOf(addresses)),
  }
}

/** Adds `by` to each key's count, dropping keys that reach zero. */
function count(counts: Map<string, number>, keys: readonly string[], by: number): void {
  for (const key of keys) {
    const next = (counts.get(key) ?? 0) + by
    if (next === 0) counts.delete(key)
    else counts.set(key, next)
  }
}

export type AuthThrottle = ReturnType<typeof createAuthThrottle>
