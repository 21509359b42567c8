import { describe, expect, test } from 'bun:test'
import { decodeBucket, encodeBucket, reserveTokens } from './bucket-state.ts'

const T0 = 1_000_000_000_000

describe('a shared token bucket', () => {
  test('is full when new, then refills at its rate', () => {
    const first = reserveTokens(undefined, { rate: 2, now: T0, need: 1, ahead: 1 })
    expect(first.granted).toBe(1)
    const second = reserveTokens(first.bucket, { rate: 2, now: T0, need: 1, ahead: 1, settle: { heldStep: first.heldStep, taken: 1, unspent: 0 } })
    expect(second.granted).toBe(1)
    const empty = reserveTokens(second.bucket, { rate: 2, now: T0, need: 1, ahead: 0, settle: { heldStep: second.heldStep, taken: 1, unspent: 0 } })
    expect(empty).toMatchObject({ granted: 0, retryAfterMs: 500 })
    const later = reserveTokens(empty.bucket, { rate: 2, now: T0 + 500, need: 1, ahead: 0 })
    expect(later.granted).toBe(1)
  })

  test('refills only up to its capacity less the tokens held unsettled: they may still be spent', () => {
    const taken = reserveTokens(undefined, { rate: 4, now: T0, need: 1, ahead: 3 })
    expect(taken.granted).toBe(1)
    // 900 ms later (the same second) the bucket would hold 4 again, but one is held.
    const other = reserveTokens(taken.bucket, { rate: 4, now: T0 + 900, need: 10, ahead: 0 })
    expect(other.granted).toBe(3)
    expect(other.bucket.held).toBe(4)
  })

  test('a settled chunk gives back what was not spent; a chunk of a second whose holdings were forgotten settles nothing', () => {
    const taken = reserveTokens(undefined, { rate: 10, now: T0, need: 1, ahead: 8 })
    expect(taken.granted).toBe(2)
    const settled = reserveTokens(taken.bucket, { rate: 10, now: T0 + 1, need: 1, ahead: 0, settle: { heldStep: taken.heldStep, taken: 2, unspent: 1 } })
    expect(settled.bucket).toMatchObject({ held: 1 })
    // The bucket and what was held were full: the millisecond since refilled nothing.
    expect(settled.bucket.tokens).toBeCloseTo(8 + 1 - 1, 6)
    // A second later nothing is held any more, whoever held it...
    const next = reserveTokens(settled.bucket, { rate: 10, now: T0 + 1000, need: 1, ahead: 0 })
    expect(next.bucket).toMatchObject({ held: 1, heldStep: taken.heldStep + 1 })
    // ...and the chunk of the second before, settled late, changes nothing.
    const late = reserveTokens(next.bucket, { rate: 10, now: T0 + 1000, need: 1, ahead: 0, settle: { heldStep: settled.heldStep, taken: 1, unspent: 1 } })
    expect(late.bucket).toMatchObject({ held: 2, tokens: next.bucket.tokens - 1 })
  })

  test('takes ahead at most an eighth of what is there beyond the token needed', () => {
    expect(reserveTokens(undefined, { rate: 100, now: T0, need: 1, ahead: 50 }).granted).toBe(1 + 12)
    expect(reserveTokens(undefined, { rate: 100, now: T0, need: 1, ahead: 5 }).granted).toBe(6)
    expect(reserveTokens(undefined, { rate: 5, now: T0, need: 1, ahead: 50 }).granted).toBe(1)
  })

  test('a process whose clock is behind the row adds to what the row holds now, and refills nothing backwards', () => {
    const ahead = reserveTokens(undefined, { rate: 2, now: T0 + 1000, need: 1, ahead: 0 })
    const behind = reserveTokens(ahead.bucket, { rate: 2, now: T0 + 990, need: 1, ahead: 0 })
    expect(behind).toMatchObject({ granted: 1, heldStep: ahead.heldStep })
    expect(behind.bucket).toMatchObject({ tokens: 0, held: 2, at: T0 + 1000 })
  })

  test('reads back what it wrote', () => {
    const bucket = { tokens: 1.25, at: T0, held: 3, heldStep: T0 / 1000 }
    expect(decodeBucket(encodeBucket(bucket))).toEqual(bucket)
    expect(decodeBucket(undefined)).toBeUndefined()
  })
})
