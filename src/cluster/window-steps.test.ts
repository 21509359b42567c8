import { describe, expect, test } from 'bun:test'
import { addAt, current, decodeSteps, encodeSteps, leavesAt, retryAfterMs, spanOf, totalOf } from './window-steps.ts'

const MINUTE = { windowMs: 60_000, stepMs: 1000 }
const steps = (pairs: Array<[number, number]>) => ({ steps: pairs.map(([s]) => s), counts: pairs.map(([, n]) => n) })

describe('a window counted by steps', () => {
  test('a minute of one-second steps spans 61 of them, and a step leaves every window 61 s after it began', () => {
    expect(spanOf(MINUTE)).toBe(61)
    expect(leavesAt(MINUTE, 100)).toBe(161_000)
  })

  test('reads back what it wrote, and an empty text is no steps', () => {
    const counts = steps([
      [100, 3],
      [105, 1],
    ])
    expect(decodeSteps(encodeSteps(counts))).toEqual(counts)
    expect(decodeSteps('')).toEqual({ steps: [], counts: [] })
    expect(decodeSteps(undefined)).toEqual({ steps: [], counts: [] })
  })

  test('keeps the steps still in the window, and later ones: another clock may run ahead', () => {
    const counts = steps([
      [100, 3],
      [139, 2],
      [161, 1],
      [162, 4],
    ])
    expect(current(counts, MINUTE, 161)).toEqual(
      steps([
        [139, 2],
        [161, 1],
        [162, 4],
      ]),
    )
    expect(current(counts, MINUTE, 223)).toEqual(steps([]))
  })

  test('adds in step order, a late step in its place, and gives back down to none, never below', () => {
    let counts = addAt(steps([]), 105, 2)
    counts = addAt(counts, 107, 1)
    counts = addAt(counts, 106, 3)
    expect(counts).toEqual(
      steps([
        [105, 2],
        [106, 3],
        [107, 1],
      ]),
    )
    expect(totalOf(counts)).toBe(6)
    expect(addAt(counts, 106, -3)).toEqual(
      steps([
        [105, 2],
        [107, 1],
      ]),
    )
    expect(addAt(counts, 105, -5)).toEqual(
      steps([
        [106, 3],
        [107, 1],
      ]),
    )
    // Giving back to a step already gone changes nothing.
    expect(addAt(counts, 90, -1)).toEqual(counts)
  })

  test('says when one more fits: once enough of the oldest steps have left', () => {
    const counts = steps([
      [100, 2],
      [110, 1],
      [120, 3],
    ])
    expect(retryAfterMs(counts, MINUTE, 7, 125_000)).toBe(0)
    // Full at 6: the two of step 100 leave at 161 s, and then one fits.
    expect(retryAfterMs(counts, MINUTE, 6, 125_000)).toBe(36_000)
    // Full at 4 with 6 counted: steps 100 and 110 must both leave.
    expect(retryAfterMs(counts, MINUTE, 4, 125_000)).toBe(46_000)
  })
})
