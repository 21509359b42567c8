import type { SharedWindow } from '../cluster/shared-window.ts'
import type { StepShape } from '../cluster/window-steps.ts'
import { AppError } from '../lib/errors.ts'
import type { WindowState } from '../lib/sliding-window.ts'

/** A minute, counted by the second. */
const WINDOW: StepShape = { windowMs: 60_000, stepMs: 1000 }

/**
 * The budgets a request may spend, each counted apart so that none can starve another:
 * - `secret-key`: a project's secret-key requests;
 * - `public-key`: a project's public-key requests (POST /v1/track), from all addresses;
 * - `public-key-address`: those from one client address;
 * - `unauthenticated`: requests from one address whose key is missing, malformed, unknown or revoked;
 * - `session`: one console account's requests, whichever project they name (as many as a secret key's);
 * - `form-address`: posts of one sign-up form from one address.
 */
export type Budget = 'secret-key' | 'public-key' | 'public-key-address' | 'unauthenticated' | 'session' | 'form-address'

export interface RateLimitSettings {
  /** Secret-key requests per minute per project, unless the project says otherwise. */
  perMinute: number
  trackPerMinute: number
  trackPerAddressPerMinute: number
  formPerAddressPerMinute: number
  unauthenticatedPerMinute: number
}

export interface RateLimitState extends WindowState {
  budget: Budget
}

const SPENT: Record<Budget, (limit: number) => string> = {
  'secret-key': (limit) => `The project's secret-key budget of ${limit} requests a minute is spent`,
  'public-key': (limit) => `The project's public-key budget of ${limit} requests a minute is spent`,
  'public-key-address': (limit) => `The project's public-key budget for your address, ${limit} requests a minute, is spent`,
  unauthenticated: (limit) => `Too many requests without a valid API key from your address: at most ${limit} a minute`,
  session: (limit) => `Your account's budget of ${limit} requests a minute is spent`,
  'form-address': (limit) => `This form takes at most ${limit} sign-ups a minute from your address`,
}

const SUGGESTION: Record<Budget, string> = {
  'secret-key': "Wait for Retry-After, or ask the operator to raise the project's limit.",
  'public-key': 'Wait for Retry-After. Public-key calls have their own budget: secret-key calls are not affected.',
  'public-key-address': 'Wait for Retry-After. Each client address has its own share of the public-key budget.',
  unauthenticated: 'Check the key in the Authorization header; a valid key is still accepted.',
  session: 'Wait for Retry-After. Applications calling with keys are not affected.',
  'form-address': 'Wait a minute and send the form again.',
}

/** Where the budgets are counted: the windows every process shares (src/cluster/rate-limits.ts). */
export interface Windows {
  window(name: string, shape: StepShape): SharedWindow
}

/**
 * Requests per minute over a sliding window, in separate budgets, counted for every process on
 * the database. `take` counts one request against a budget's key and throws 429 (naming the
 * budget) when it is spent.
 */
export function createRateLimiter(windows: Windows, settings: RateLimitSettings) {
  const windowOf = (budget: Budget) => windows.window(budget, WINDOW)
  const limits: Record<Budget, number> = {
    'secret-key': settings.perMinute,
    'public-key': settings.trackPerMinute,
    'public-key-address': settings.trackPerAddressPerMinute,
    unauthenticated: settings.unauthenticatedPerMinute,
    session: settings.perMinute,
    'form-address': settings.formPerAddressPerMinute,
  }
  return {
    async take(budget: Budget, key: string, override: number | null = null): Promise<RateLimitState> {
      const state = { ...(await windowOf(budget).take(key, override ?? limits[budget])), budget }
      if (state.retryAfterMs === 0) return state
      const retryAfter = Math.max(1, Math.ceil(state.retryAfterMs / 1000))
      throw new AppError(429, 'RATE_LIMITED', SPENT[budget](state.limit), {
        suggestion: SUGGESTION[budget],
        headers: { ...rateLimitHeaders(state), 'retry-after': String(retryAfter) },
      })
    },
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'x-ratelimit-limit': String(state.limit),
  'x-ratelimit-remaining': String(state.remaining),
  'x-ratelimit-reset': String(Math.ceil(state.resetAt / 1000)),
  'x-ratelimit-scope': state.budget,
})
