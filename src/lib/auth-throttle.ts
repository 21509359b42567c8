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

/**
 * Failed logins per client address, over the last ten minutes, for HTTP and SMTP alike. After
 * three, each login from the address waits before its key is checked, twice as long at each
 * failure up to 8 s, whether the key is right or wrong: a guesser cannot tell a quick answer from a
 * slow one, and a right key is slowed, never refused for its address's failures. Nothing locks an
 * address out. Failures are forgotten as they leave the ten minutes, not when a right key comes:
 * otherwise a key holder could wipe its own address's record between guesses.
 *
 * A delay alone would not slow a guesser who sends many logins at once, so a slowed address has
 * at most MAX_WAITING logins waiting in this process: one more is turned away before its key is
 * looked at, and so tells nothing of that key.
 */
export function createAuthThrottle(clock: Clock, failures: FailureCounts = localFailures(clock)) {
  // Only keys with logins waiting now: each entry goes when its last login stops waiting.
  const waiting = new Map<string, number>()
  const delayOf = async (key: string): Promise<number> => {
    const count = await failures.count(key)
    return count < FREE_FAILURES ? 0 : Math.min(MAX_DELAY_MS, 250 * 2 ** (count - FREE_FAILURES + 1))
  }
  /**
   * A login is counted under each of its keys: its address, and for a console sign-in the
   * account too (`account <email>`), so that guesses at one account from many addresses are
   * slowed like guesses from one address. It waits as its most-failed key says.
   */
  const keysOf = (addresses: readonly string[]) => [...new Set(addresses.map(clientKey))]
  const delay = async (...addresses: string[]): Promise<number> => Math.max(0, ...(await Promise.all(keysOf(addresses).map(delayOf))))
  return {
    /** How long the next login under `addresses` waits before its key is checked (ms). */
    delay,
    /**
     * Waits as long as a login under `addresses` must before its key is checked. False, at once,
     * when MAX_WAITING logins under one of them are waiting already.
     */
    async admit(...addresses: string[]): Promise<boolean> {
      const ms = await delay(...addresses)
      if (ms === 0) return true
      const keys = keysOf(addresses)
      if (keys.some((key) => (waiting.get(key) ?? 0) >= MAX_WAITING)) return false
      for (const key of keys) waiting.set(key, (waiting.get(key) ?? 0) + 1)
      try {
        await Bun.sleep(ms)
      } finally {
        for (const key of keys) {
          const left = waiting.get(key)! - 1
          if (left === 0) waiting.delete(key)
          else waiting.set(key, left)
        }
      }
      return true
    },
    fail: async (...addresses: string[]): Promise<void> => {
      for (const key of keysOf(addresses)) await failures.add(key)
    },
  }
}

export type AuthThrottle = ReturnType<typeof createAuthThrottle>
