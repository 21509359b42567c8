import type { Clock } from './clock.ts'
import { clientKey } from './ip.ts'
import { createSlidingWindow } from './sliding-window.ts'

const FREE_FAILURES = 3
const MAX_DELAY_MS = 8000
const WINDOW_MS = 10 * 60_000
const MAX_ADDRESSES = 10_000

/**
 * Failed logins per client address (IPv6 by its /64, as every limit counts clients), over the
 * last ten minutes. After three, each login from the address waits before its key is checked,
 * twice as long at each failure up to 8 s, whether the key is right or wrong: a guesser cannot
 * tell a quick answer from a slow one, and a right key is slowed, never refused. Nothing locks an
 * address out. Failures are forgotten as they leave the ten minutes, not when a right key comes:
 * otherwise a key holder could wipe its own address's record between guesses.
 */
export function createAuthThrottle(clock: Clock) {
  const failures = createSlidingWindow(clock, { windowMs: WINDOW_MS, maxKeys: MAX_ADDRESSES, stepMs: 10_000 })
  return {
    /** How long the next login from `address` waits before its key is checked (ms). */
    delay(address: string): number {
      const count = failures.count(clientKey(address))
      return count < FREE_FAILURES ? 0 : Math.min(MAX_DELAY_MS, 250 * 2 ** (count - FREE_FAILURES + 1))
    },
    fail: (address: string) => void failures.take(clientKey(address), Number.MAX_SAFE_INTEGER),
  }
}

export type AuthThrottle = ReturnType<typeof createAuthThrottle>
