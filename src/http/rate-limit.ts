import type { Clock } from '../lib/clock.ts'
import { AppError } from '../lib/errors.ts'

const WINDOW_MS = 60_000

export interface RateLimitState {
  limit: number
  remaining: number
  /** Epoch seconds at which the window starts over. */
  reset: number
}

/**
 * Requests per project per minute, counted in fixed windows in this process. `take` counts one
 * request and throws 429 when the window is used up.
 */
export function createRateLimiter(clock: Clock, defaultPerMinute: number) {
  const windows = new Map<number, { start: number; count: number }>()
  return {
    take(projectId: number, override: number | null): RateLimitState {
      const now = clock.now()
      const start = now - (now % WINDOW_MS)
      let window = windows.get(projectId)
      if (!window || window.start !== start) windows.set(projectId, (window = { start, count: 0 }))
      const limit = override ?? defaultPerMinute
      const state = { limit, remaining: 0, reset: Math.ceil((start + WINDOW_MS) / 1000) }
      if (window.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000))
        throw new AppError(429, 'RATE_LIMITED', `Rate limit of ${limit} requests per minute exceeded`, {
          suggestion: `Wait ${retryAfter} s, or ask the operator to raise the project's limit.`,
          headers: { ...rateLimitHeaders(state), 'retry-after': String(retryAfter) },
        })
      }
      window.count++
      return { ...state, remaining: limit - window.count }
    },
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'x-ratelimit-limit': String(state.limit),
  'x-ratelimit-remaining': String(state.remaining),
  'x-ratelimit-reset': String(state.reset),
})
