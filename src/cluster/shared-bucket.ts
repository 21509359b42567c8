import type { Clock } from '../lib/clock.ts'
import type { Write } from '../db/locking.ts'
import { bucketExpiresAt, decodeBucket, encodeBucket, reserveTokens, STEP_MS, type Chunk, type Reservation } from './bucket-state.ts'
import { changeRateLimit } from './rate-limits.repository.ts'

/** A refusal is believed at most this long before the row is asked again: others may settle what they held. */
const REFUSAL_TRUSTED_MS = 1000

/** One key's tokens in this process. */
interface Entry {
  /** The step `held` was taken in: tokens are spent only in their own step. */
  step: number
  held: number
  /** The tokens taken last, to settle at the next reservation. */
  chunk?: Chunk
  spent: number
  spentBefore: number
  refusedUntil: number
  pending?: Promise<void>
}

export interface SharedBucketDeps {
  /** Runs a write of the row (`contendedWrite`). */
  write: Write
  clock: Clock
}

/**
 * Token buckets (`rate` a second, holding at most `rate`) shared by every process on the
 * database, one per key: the send rate of each project. A process takes tokens in chunks (what it
 * spent in the last second, and at least the one it needs), spends them within that second, and
 * settles each chunk at its next reservation. See bucket-state.ts for the bound.
 */
export function createSharedBucket(name: string, deps: SharedBucketDeps) {
  const { write, clock } = deps
  const entries = new Map<number, Entry>()

  function entryOf(key: number, step: number): Entry {
    let entry = entries.get(key)
    if (!entry) entries.set(key, (entry = { step, held: 0, spent: 0, spentBefore: 0, refusedUntil: 0 }))
    if (step > entry.step) {
      // Tokens of a passed step are not spent: the chunk says so when it is settled.
      if (entry.chunk) entry.chunk.unspent += entry.held
      entry.spentBefore = step === entry.step + 1 ? entry.spent : 0
      entry.held = 0
      entry.spent = 0
      entry.step = step
    }
    return entry
  }

  async function reserve(key: number, entry: Entry, rate: number): Promise<void> {
    const now = clock.now()
    const step = Math.floor(now / STEP_MS)
    const settle = entry.chunk
    entry.chunk = undefined
    let outcome: Reservation
    try {
      outcome = await write((trx) =>
        changeRateLimit(trx, name, String(key), (text) => {
          const reservation = reserveTokens(decodeBucket(text), { rate, now, need: 1, ahead: Math.max(entry.spent, entry.spentBefore), ...(settle && { settle }) })
          return { state: encodeBucket(reservation.bucket), expiresAt: bucketExpiresAt(reservation.bucket, rate), result: reservation }
        }),
      )
    } catch (error) {
      entry.chunk = settle
      throw error
    }
    if (outcome.granted === 0) {
      entry.refusedUntil = now + Math.min(outcome.retryAfterMs, REFUSAL_TRUSTED_MS)
      return
    }
    // The write took time: tokens of a step that has passed are settled unspent, never spent.
    const spendable = Math.floor(clock.now() / STEP_MS) === step
    if (spendable) entryOf(key, step).held += outcome.granted
    entry.chunk = { heldStep: outcome.heldStep, taken: outcome.granted, unspent: spendable ? 0 : outcome.granted }
  }

  return {
    /** Whether `key` has a token to spend now, taking some from the shared bucket if it has none here. */
    async ready(key: number, rate: number): Promise<boolean> {
      for (;;) {
        const now = clock.now()
        const entry = entryOf(key, Math.floor(now / STEP_MS))
        if (entry.held > 0) return true
        if (now < entry.refusedUntil) return false
        if (!entry.pending) entry.pending = reserve(key, entry, rate).finally(() => (entry.pending = undefined))
        await entry.pending
      }
    },
    /** Spends a token that `ready` said is there; false when its second has passed since. */
    take(key: number): boolean {
      const entry = entryOf(key, Math.floor(clock.now() / STEP_MS))
      if (entry.held === 0) return false
      entry.held--
      entry.spent++
      return true
    },
    /** The keys refused lately, with no token here: none is expected before their bucket refills. */
    starved(): number[] {
      const now = clock.now()
      return [...entries].filter(([, entry]) => entry.held === 0 && now < entry.refusedUntil).map(([key]) => key)
    },
  }
}

export type SharedBucket = ReturnType<typeof createSharedBucket>
