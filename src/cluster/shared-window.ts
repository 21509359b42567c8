import type { Write } from '../db/locking.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { WindowState } from '../lib/sliding-window.ts'
import { changeRateLimit, readRateLimit } from './rate-limits.repository.ts'
import { addAt, current, decodeSteps, encodeSteps, leavesAt, retryAfterMs, stepAt, totalOf, type StepShape, type Steps } from './window-steps.ts'

/** Of what a window has left, at most this share is taken ahead of the requests waiting for it. */
const AHEAD_SHARE = 8
/** A refusal is believed this long before the row is asked again: another process may have given tokens back meanwhile. */
const REFUSAL_TRUSTED_MS = 1000

/** One key's tokens in this process. */
interface Entry {
  /** The step `held` was taken in: tokens are used only in their own step. */
  step: number
  held: number
  /** Tokens used in `step`, and in the step before it: how many the next reservation takes ahead. */
  spent: number
  spentBefore: number
  /** Tokens of past steps that were not used, by step: given back at the next write. */
  back: Map<number, number>
  /** The row as this process last wrote or read it. */
  seen: Steps
  seenAt: number
  /** Refused under `limit`: not asked again before `askAgainAt` while what was seen stays full. */
  refused?: { limit: number; askAgainAt: number }
  pending?: Promise<void>
  /** Takers waiting for `pending`: the next reservation takes a token for each. */
  waiting: number
}

export interface SharedWindowDeps {
  db: Db
  /** Runs a write of the row (`contendedWrite`). */
  write: Write
  clock: Clock
}

/**
 * Requests per key over a sliding window, counted in the database so that every process on it
 * spends one budget. The shared row counts tokens per step; a process takes tokens from it in
 * small chunks and spends them in memory, so a request costs a write only when its process has
 * none left. A reservation takes one token for each request waiting for it, and ahead of them at
 * most what the process spent in the step before (or so far in this one), never more than an
 * eighth of what the window has left.
 *
 * The bound, across any number of processes: no span of `windowMs` passes more than the limit.
 * A token counts at the step it was taken in and is spent only within that step (one left over is
 * given back, never spent later), so every request is counted in every window that holds it, as
 * the in-memory window counts it. Refusals may come early, never late: a request is refused only
 * when the row holds the limit, of which other processes may hold tokens they have not spent yet
 * (at most an eighth of what was left each time they took some, and only until their step ends:
 * leftovers are given back within a second by `sweep`), and a refusal is believed for at most a
 * second before the row is asked again.
 */
export function createSharedWindow(name: string, shape: StepShape, deps: SharedWindowDeps) {
  const { write, clock } = deps
  const entries = new Map<string, Entry>()

  function entryOf(key: string, step: number): Entry {
    let entry = entries.get(key)
    if (!entry) entries.set(key, (entry = { step, held: 0, spent: 0, spentBefore: 0, back: new Map(), seen: { steps: [], counts: [] }, seenAt: -Infinity, waiting: 0 }))
    return roll(entry, step)
  }

  /** Moves the entry on to `step`: what it held for an earlier one can no longer be spent, and goes back. */
  function roll(entry: Entry, step: number): Entry {
    if (step <= entry.step) return entry
    if (entry.held > 0) owe(entry, entry.step, entry.held)
    entry.spentBefore = step === entry.step + 1 ? entry.spent : 0
    entry.held = 0
    entry.spent = 0
    entry.step = step
    return entry
  }

  const owe = (entry: Entry, step: number, n: number) => entry.back.set(step, (entry.back.get(step) ?? 0) + n)

  /** What the row says now, as last seen, after a request was counted (`taken`) or refused. */
  function stateOf(entry: Entry, limit: number, now: number, taken: boolean): WindowState {
    const seen = current(entry.seen, shape, stepAt(shape, now))
    const last = seen.steps.at(-1)
    const resetAt = last === undefined ? now : leavesAt(shape, last)
    if (!taken) return { limit, remaining: 0, resetAt, retryAfterMs: retryAfterMs(seen, shape, limit, now) }
    return { limit, remaining: Math.max(0, limit - totalOf(seen) + entry.held), resetAt, retryAfterMs: 0 }
  }

  /** Refused lately under `limit`, and the row as last seen is still full. */
  const refusing = (entry: Entry, limit: number, now: number) =>
    entry.refused !== undefined &&
    entry.refused.limit === limit &&
    now < entry.refused.askAgainAt &&
    retryAfterMs(current(entry.seen, shape, stepAt(shape, now)), shape, limit, now) > 0

  /**
   * One write of the row: gives back what the entry owes, and takes `take` tokens (one for each
   * request waiting) and a few ahead; with `take` 0 it only gives back.
   */
  async function reserve(key: string, entry: Entry, limit: number, take: number): Promise<void> {
    const now = clock.now()
    const step = stepAt(shape, now)
    const back = [...entry.back]
    entry.back.clear()
    const ahead = Math.max(entry.spent, entry.spentBefore)
    let outcome: { counts: Steps; granted: number }
    try {
      outcome = await write((trx) =>
        changeRateLimit(trx, name, key, (text) => {
          let counts = current(decodeSteps(text), shape, step)
          for (const [at, n] of back) counts = addAt(counts, at, -n)
          const left = limit - totalOf(counts)
          const granted = take === 0 || left <= 0 ? 0 : Math.min(left, take + Math.max(0, Math.min(ahead, Math.floor((left - take) / AHEAD_SHARE))))
          if (granted > 0) counts = addAt(counts, step, granted)
          const last = counts.steps.at(-1)
          // A row that never was and would hold nothing is not made.
          const state = text === undefined && last === undefined ? undefined : encodeSteps(counts)
          return { state, expiresAt: last === undefined ? now : leavesAt(shape, last), result: { counts, granted } }
        }),
      )
    } catch (error) {
      for (const [at, n] of back) owe(entry, at, n)
      throw error
    }
    entry.seen = outcome.counts
    entry.seenAt = now
    entry.refused = undefined
    // The write took time: tokens of a step that has passed are given back, never spent.
    if (stepAt(shape, clock.now()) === step) roll(entry, step).held += outcome.granted
    else if (outcome.granted > 0) owe(entry, step, outcome.granted)
    if (take > 0 && totalOf(outcome.counts) >= limit) {
      entry.refused = { limit, askAgainAt: now + Math.min(retryAfterMs(outcome.counts, shape, limit, now), REFUSAL_TRUSTED_MS) }
    }
  }

  /** Runs a reservation for the entry unless one is under way; either way waits for it. */
  async function reserveOnce(key: string, entry: Entry, limit: number, take: number): Promise<void> {
    if (entry.pending) {
      entry.waiting++
      try {
        await entry.pending
      } finally {
        entry.waiting--
      }
      return
    }
    entry.pending = reserve(key, entry, limit, take).finally(() => (entry.pending = undefined))
    await entry.pending
  }

  return {
    /** Counts one request against `key` if `limit` allows it across the processes; says what is left either way. */
    async take(key: string, limit: number): Promise<WindowState> {
      for (;;) {
        const now = clock.now()
        const entry = entryOf(key, stepAt(shape, now))
        if (entry.held > 0) {
          entry.held--
          entry.spent++
          return stateOf(entry, limit, now, true)
        }
        if (refusing(entry, limit, now)) return stateOf(entry, limit, now, false)
        await reserveOnce(key, entry, limit, 1 + entry.waiting)
      }
    },
    /** Counts one against `key`, whatever the count: for failures, which nothing refuses. */
    async add(key: string): Promise<void> {
      const now = clock.now()
      const step = stepAt(shape, now)
      const entry = entryOf(key, step)
      entry.seen = await write((trx) =>
        changeRateLimit(trx, name, key, (text) => {
          const counts = addAt(current(decodeSteps(text), shape, step), step, 1)
          return { state: encodeSteps(counts), expiresAt: leavesAt(shape, step), result: counts }
        }),
      )
      entry.seenAt = now
    },
    /** How many the window of `key` holds now, as read at most `freshMs` ago. */
    async count(key: string, freshMs: number): Promise<number> {
      const now = clock.now()
      const entry = entryOf(key, stepAt(shape, now))
      if (now - entry.seenAt >= freshMs || now < entry.seenAt) {
        entry.seen = decodeSteps(await readRateLimit(deps.db, name, key))
        entry.seenAt = now
      }
      return totalOf(current(entry.seen, shape, stepAt(shape, now)))
    },
    /**
     * Gives back the tokens that steps now passed left unspent (`all`: those of this step too, at a
     * stop), and forgets keys with nothing held, owed or under way since the step before last.
     * Run every second or so.
     */
    async sweep(options: { all?: boolean } = {}): Promise<void> {
      const step = stepAt(shape, clock.now())
      const writes: Array<Promise<void>> = []
      for (const [key, entry] of entries) {
        roll(entry, step)
        if (options.all && entry.held > 0) {
          owe(entry, entry.step, entry.held)
          entry.held = 0
        }
        if (entry.back.size > 0 && !entry.pending) {
          // Nothing is taken: the write only gives back, and what this process saw of the row is new (a refusal is asked again).
          entry.pending = reserve(key, entry, Number.MAX_SAFE_INTEGER, 0).finally(() => (entry.pending = undefined))
          writes.push(entry.pending)
        } else if (entry.step < step - 1 && entry.back.size === 0 && !entry.pending && entry.waiting === 0) {
          entries.delete(key)
        }
      }
      // Started together, they share one commit on SQLite.
      const failed = (await Promise.allSettled(writes)).find((result) => result.status === 'rejected')
      if (failed) throw failed.reason
    },
  }
}

export type SharedWindow = ReturnType<typeof createSharedWindow>
