import { DEFAULT_RETRY_SCHEDULE } from '../config/delivery-settings.ts'

export { DEFAULT_RETRY_SCHEDULE }

/** When to try again after `attempts` attempts have failed (attempts >= 1). */
export function nextAttemptAt(attempts: number, now: number, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE): number {
  const wait = schedule[Math.min(attempts, schedule.length) - 1] ?? schedule.at(-1)!
  return now + wait
}
