import { describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { createSlidingWindow } from './sliding-window.ts'

const MINUTE = 60_000

describe('the sliding window', () => {
  test('counts up to the limit, then refuses and says when one more fits', () => {
    const clock = new ManualClock(Date.parse('2026-11-01T12:00:10.250Z'))
    const window = createSlidingWindow(clock, { windowMs: MINUTE, maxKeys: 10 })
    expect([1, 2, 3].map(() => window.take('a', 3).remaining)).toEqual([2, 1, 0])
    const refused = window.take('a', 3)
    expect(refused).toMatchObject({ remaining: 0, retryAfterMs: 60_750 })
    clock.advance(60_749)
    expect(window.take('a', 3).retryAfterMs).toBe(1)
    clock.advance(1)
    // The three came in the same second, and leave together.
    expect(window.take('a', 3)).toMatchObject({ remaining: 2, retryAfterMs: 0 })
  })

  test('a burst straddling the edge of a minute passes the limit once, not twice', () => {
    const clock = new ManualClock(Date.parse('2026-11-01T12:00:59.500Z'))
    const window = createSlidingWindow(clock, { windowMs: MINUTE, maxKeys: 10 })
    let passed = 0
    for (let i = 0; i < 10; i++) passed += window.take('a', 10).retryAfterMs === 0 ? 1 : 0
    clock.advance(1000)
    for (let i = 0; i < 10; i++) passed += window.take('a', 10).retryAfterMs === 0 ? 1 : 0
    expect(passed).toBe(10)
  })

  test('no span of a minute ever passes more than the limit, whatever the pattern', () => {
    const clock = new ManualClock()
    const window = createSlidingWindow(clock, { windowMs: MINUTE, maxKeys: 10 })
    const passedAt: number[] = []
    let seed = 7
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 48271) % 2147483647
      clock.advance(seed % 97)
      if (window.take('a', 50).retryAfterMs === 0) passedAt.push(clock.now())
    }
    let first = 0
    for (let last = 0; last < passedAt.length; last++) {
      while (passedAt[last]! - passedAt[first]! >= MINUTE) first++
      expect(last - first + 1).toBeLessThanOrEqual(50)
    }
    // It is a limit, not a lock: about 50 a minute went through over the run.
    const minutes = (passedAt.at(-1)! - passedAt[0]!) / MINUTE
    expect(passedAt.length / minutes).toBeGreaterThan(45)
  })

  test('keys are counted apart, and a lower limit applies at once', () => {
    const window = createSlidingWindow(new ManualClock(), { windowMs: MINUTE, maxKeys: 10 })
    for (let i = 0; i < 5; i++) window.take('a', 5)
    expect(window.take('b', 5).remaining).toBe(4)
    expect(window.take('a', 3).retryAfterMs).toBeGreaterThan(0)
    expect(window.count('a')).toBe(5)
  })

  test('holds at most maxKeys keys, forgetting those unused longest', () => {
    const window = createSlidingWindow(new ManualClock(), { windowMs: MINUTE, maxKeys: 4 })
    for (const key of ['a', 'b', 'c']) window.take(key, 1)
    window.take('a', 1)
    window.take('d', 1)
    expect(window.size()).toBeLessThanOrEqual(4)
    expect(window.count('b')).toBe(0)
    expect(window.take('a', 1).retryAfterMs).toBeGreaterThan(0)
    for (let i = 0; i < 1000; i++) window.take(`k${i}`, 1)
    expect(window.size()).toBeLessThanOrEqual(4)
  })
})
