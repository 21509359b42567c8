import type { Clock } from './clock.ts'

export interface WindowState {
  /** Requests allowed in any window. */
  limit: number
  /** Requests left now. */
  remaining: number
  /** When nothing counted so far is in the window any more (ms). */
  resetAt: number
  /** Refused: how long until one more request fits (ms); 0 when it was counted. */
  retryAfterMs: number
}

/** One key's counts: the steps that had requests, oldest first, and how many each had. */
interface Counts {
  steps: number[]
  counts: number[]
  total: number
}

export interface WindowOptions {
  windowMs: number
  /** Keys held at most. */
  maxKeys: number
  /** Requests are counted per step of this many ms (a second unless said). */
  stepMs?: number
}

/**
 * Requests per key over a sliding window, counted per step (a second). A request is counted
 * against every window that holds its step, so no span of `windowMs` ever passes more than the
 * limit, whichever way a burst straddles a minute: a fixed window would let twice the limit
 * through across its edge. Refused requests are not counted. Memory is bounded whatever the
 * number of clients: at most `maxKeys` keys, each with at most one count per step; keys unused
 * longest are forgotten first.
 */
export function createSlidingWindow(clock: Clock, options: WindowOptions) {
  const stepMs = options.stepMs ?? 1000
  // One step more than the window: a window of 60 s spans parts of 61 whole seconds.
  const span = Math.ceil(options.windowMs / stepMs) + 1
  // Two generations: keys used lately, and those used before them. When the young one is full it
  // becomes the old one, and what was old and not used since is forgotten at once. (Deleting a
  // Map's oldest keys one at a time makes each later lookup of its first key slower in Bun.)
  let young = new Map<string, Counts>()
  let old = new Map<string, Counts>()
  const half = Math.max(1, Math.floor(options.maxKeys / 2))

  const find = (key: string): Counts | undefined => {
    const recent = young.get(key)
    if (recent) return recent
    const earlier = old.get(key)
    if (!earlier) return undefined
    old.delete(key)
    return keep(key, earlier)
  }

  const keep = (key: string, entry: Counts): Counts => {
    if (young.size >= half) [old, young] = [young, new Map()]
    young.set(key, entry)
    return entry
  }

  /** The key's counts still in the window that holds `step`. */
  const current = (key: string, step: number): Counts => {
    const entry = find(key) ?? keep(key, { steps: [], counts: [], total: 0 })
    let expired = 0
    while (expired < entry.steps.length && entry.steps[expired]! <= step - span) entry.total -= entry.counts[expired++]!
    if (expired > 0) {
      entry.steps.splice(0, expired)
      entry.counts.splice(0, expired)
    }
    return entry
  }
  const leaves = (step: number) => (step + span) * stepMs

  return {
    /** Counts one request against `key` if `limit` allows it; says what is left either way. */
    take(key: string, limit: number): WindowState {
      const now = clock.now()
      const step = Math.floor(now / stepMs)
      const entry = current(key, step)
      if (entry.total >= limit) {
        // The oldest steps leave first; enough of them must leave for one more to fit.
        let freed = 0
        let index = 0
        while (index < entry.steps.length - 1 && entry.total - (freed += entry.counts[index]!) >= limit) index++
        return { limit, remaining: 0, resetAt: leaves(entry.steps.at(-1)!), retryAfterMs: leaves(entry.steps[index]!) - now }
      }
      if (entry.steps.at(-1) === step) entry.counts[entry.counts.length - 1]!++
      else (entry.steps.push(step), entry.counts.push(1))
      entry.total++
      return { limit, remaining: limit - entry.total, resetAt: leaves(step), retryAfterMs: 0 }
    },
    /** Requests counted against `key` in the window that holds now. */
    count: (key: string) => (young.has(key) || old.has(key) ? current(key, Math.floor(clock.now() / stepMs)).total : 0),
    /** Keys held now: for tests of the bound. */
    size: () => young.size + old.size,
  }
}

export type SlidingWindow = ReturnType<typeof createSlidingWindow>
