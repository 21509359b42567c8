const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * How long to wait after each failed attempt; the last wait repeats until the message expires.
 * Cumulative from the first attempt: 1m, 6m, 21m, 51m, 1h51m, 3h51m, 7h51m, 15h51m, then every 8 h.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  1 * MINUTE, // 1m
  5 * MINUTE, // 6m
  15 * MINUTE, // 21m
  30 * MINUTE, // 51m
  1 * HOUR, // 1h51m
  2 * HOUR, // 3h51m
  4 * HOUR, // 7h51m
  8 * HOUR, // 15h51m, and every 8 h after
]

/** When to try again after `attempts` attempts have failed (attempts >= 1). */
export function nextAttemptAt(attempts: number, now: number, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE): number {
  const wait = schedule[Math.min(attempts, schedule.length) - 1] ?? schedule.at(-1)!
  return now + wait
}
