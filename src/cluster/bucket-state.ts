/*
 * A token bucket shared by processes, as its row keeps it, and the one change made to it: a
 * process settles the tokens it took last and takes more. Pure: the shared buckets run it inside a
 * compare-and-set of the row.
 *
 * A process spends the tokens it takes only within the step (a second) it took them in. `held`
 * counts the tokens taken in step `heldStep` that their process has not settled yet: spent or
 * not, they are out of the bucket and may still be spent, so the bucket refills only up to its
 * capacity less them (the refill is reckoned when the row next changes, under what was held
 * meanwhile, before anything is settled). Every token that can be spent is then either in the
 * bucket or held, and the two together never pass the capacity: across all processes, no span of
 * T seconds spends more than capacity + rate × T tokens, as one bucket in one process allows
 * (src/cluster/rate-limits.test.ts tries it at random).
 */

export const STEP_MS = 1000

/** Of what a bucket has, at most this share is taken ahead of the one needed now. */
const AHEAD_SHARE = 8

export interface Bucket {
  /** Tokens in the bucket (fractions accrue), as of `at` (ms). */
  tokens: number
  at: number
  /** Tokens taken in step `heldStep` and not settled by their process. */
  held: number
  heldStep: number
}

/** The tokens a process took last: how many, in which step the row held them, and how many it did not spend. */
export interface Chunk {
  heldStep: number
  taken: number
  unspent: number
}

export interface Reservation {
  bucket: Bucket
  granted: number
  /** The chunk's step as the row holds it, for the process to settle it by. */
  heldStep: number
  /** Refused: how long until a token may be there (ms); 0 when some were granted. */
  retryAfterMs: number
}

export const encodeBucket = (b: Bucket) => `${b.tokens} ${b.at} ${b.held} ${b.heldStep}`

export function decodeBucket(text: string | undefined): Bucket | undefined {
  if (!text) return undefined
  const [tokens, at, held, heldStep] = text.split(' ').map(Number)
  return { tokens: tokens!, at: at!, held: held!, heldStep: heldStep! }
}

/** When a bucket is as good as new: full, and nothing held (ms). */
export const bucketExpiresAt = (b: Bucket, rate: number) => Math.max((b.heldStep + 1) * STEP_MS, b.at + Math.ceil(((rate - b.tokens) * 1000) / rate))

/**
 * Settles `settle` (the process's last chunk: its unspent tokens go back, and none of it is held
 * any more) and takes `need` tokens and up to `ahead` more, at `now` in step `step`, from a bucket
 * of `rate` tokens a second holding at most `rate`. A new bucket is full.
 */
export function reserveTokens(previous: Bucket | undefined, p: { rate: number; now: number; need: number; ahead: number; settle?: Chunk }): Reservation {
  const step = Math.floor(p.now / STEP_MS)
  const b: Bucket = previous ? { ...previous } : { tokens: p.rate, at: p.now, held: 0, heldStep: step }
  // What accrued since the last change accrued under what was held then: refilled before anything is settled.
  const refill = (until: number) => {
    if (until <= b.at) return
    b.tokens = Math.min(Math.max(0, p.rate - b.held), b.tokens + ((until - b.at) * p.rate) / 1000)
    b.at = until
  }
  refill(Math.min(p.now, (b.heldStep + 1) * STEP_MS))
  // A chunk of a step whose held tokens were already forgotten is settled by that.
  if (p.settle && p.settle.heldStep === b.heldStep) {
    b.held = Math.max(0, b.held - p.settle.taken)
    b.tokens += p.settle.unspent
  }
  // Tokens of a step that has passed can no longer be spent: nothing is held for it.
  if (step > b.heldStep) {
    b.held = 0
    b.heldStep = step
  }
  refill(p.now)
  const room = Math.max(0, p.rate - b.held)
  // A rate lowered since: the bucket holds no more than it may now.
  b.tokens = Math.min(b.tokens, room)
  // Refills in thousandths of a token: the float sum of many small refills may fall short of a whole one by a hair.
  const whole = Math.floor(b.tokens + 1e-9)
  const granted = whole < 1 ? 0 : Math.min(whole, p.need + Math.max(0, Math.min(p.ahead, Math.floor((whole - p.need) / AHEAD_SHARE))))
  b.tokens = Math.max(0, b.tokens - granted)
  b.held += granted
  let retryAfterMs = 0
  if (granted === 0) {
    // Without room the bucket waits for the held tokens to be settled, at the latest when their step ends.
    retryAfterMs = room >= 1 ? Math.ceil(((1 - b.tokens) * 1000) / p.rate) : (b.heldStep + 1) * STEP_MS - p.now
  }
  return { bucket: b, granted, heldStep: b.heldStep, retryAfterMs: Math.max(granted === 0 ? 1 : 0, retryAfterMs) }
}
