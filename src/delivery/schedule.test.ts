import { describe, expect, test } from 'bun:test'
import { nextAttemptAt } from './schedule.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

describe('the retry schedule', () => {
  test('waits 1m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, then 8h again and again', () => {
    const waits = Array.from({ length: 11 }, (_, i) => nextAttemptAt(i + 1, 0))
    expect(waits).toEqual([1, 5, 15, 30, 60, 120, 240, 480, 480, 480, 480].map((m) => m * MINUTE))
  })

  test('the attempts of three days add up as the comments say', () => {
    let at = 0
    const times: number[] = []
    for (let attempt = 1; at < 72 * HOUR; attempt++) times.push((at = nextAttemptAt(attempt, at)))
    expect(times.slice(0, 8)).toEqual([1, 6, 21, 51, 111, 231, 471, 951].map((m) => m * MINUTE))
    expect(times.length).toBe(16)
  })
})
