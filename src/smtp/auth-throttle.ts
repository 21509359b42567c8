import type { Clock } from '../lib/clock.ts'

const FREE_FAILURES = 3
const BLOCK_AFTER = 10
const WINDOW_MS = 10 * 60_000
const BLOCK_MS = 15 * 60_000

/**
 * Failed logins per client address: after a few, each answer is slowed (doubling, up to 8 s);
 * after ten within ten minutes, the address is refused for fifteen minutes.
 */
export function createAuthThrottle(clock: Clock) {
  const failures = new Map<string, { count: number; since: number; blockedUntil: number }>()
  const current = (address: string) => {
    const entry = failures.get(address)
    if (entry && clock.now() - entry.since > WINDOW_MS && entry.blockedUntil <= clock.now()) {
      failures.delete(address)
      return undefined
    }
    return entry
  }
  return {
    isBlocked: (address: string) => (current(address)?.blockedUntil ?? 0) > clock.now(),
    /** Records a failure; returns how long to wait before answering it. */
    fail(address: string): number {
      const entry = current(address) ?? { count: 0, since: clock.now(), blockedUntil: 0 }
      entry.count++
      if (entry.count >= BLOCK_AFTER) entry.blockedUntil = clock.now() + BLOCK_MS
      failures.set(address, entry)
      return entry.count <= FREE_FAILURES ? 0 : Math.min(8000, 250 * 2 ** (entry.count - FREE_FAILURES))
    },
    succeed: (address: string) => void failures.delete(address),
  }
}
