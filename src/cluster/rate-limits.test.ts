// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { twoConnections } from '../../test/helpers/postgres.ts'
import { createWriter } from '../db/writer.ts'
import { silentLogger } from '../lib/logger.ts'
import { createRateLimits, type RateLimits } from './rate-limits.ts'
import { readRateLimit } from './rate-limits.repository.ts'
import { current, decodeSteps, totalOf } from './window-steps.ts'

/*
 * Two processes' rate limits on one database: each its own connection and writer, as two
 * processes have (a SQLite file, or PostgreSQL when the suite runs there), on one clock that the
 * tests move.
 */
let connections: Awaited<ReturnType<typeof twoConnections>>
let clock: ManualClock
let processes: [RateLimits, RateLimits]

beforeEach(async () => {
  connections = await twoConnections()
  clock = new ManualClock(Date.parse('2026-11-01T12:00:00.250Z'))
  processes = [connections.first, connections.second].map((database) =>
    createRateLimits({ db: database.db, write: createWriter(database.db).run, clock, logger: silentLogger }),
  ) as [RateLimits, RateLimits]
})

afterEach(() => connections.close())

const MINUTE = { windowMs: 60_000, stepMs: 1000 }

/** A generator of numbers in [0, 1) that gives the same run every time. */
function seeded(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
}

describe('a request budget shared by two processes', () => {
  test('taken in turns, the limit passes across both and the next request is refused by each', async () => {
    const windows = processes.map((limits) => limits.window('secret-key', MINUTE))
    const passed = []
    for (let i = 0; i < 8; i++) passed.push((await windows[i % 2]!.take('7', 8)).retryAfterMs === 0)
    expect(passed).toEqual(Array(8).fill(true))
    for (const window of windows) expect(await window.take('7', 8)).toMatchObject({ remaining: 0, retryAfterMs: 60_750 })
  })

  test('under bursts at random through both, no minute passes more than the limit, and what the row counts is what was spent', async () => {
    const LIMIT = 40
    const random = seeded(7)
    const windows = processes.map((limits) => limits.window('secret-key', MINUTE))
    const passedAt: number[] = []
    for (let round = 0; round < 400; round++) {
      clock.advance(Math.floor(random() * 700))
      // A burst at one of them, then the other's leftovers of passed seconds go back, as its timer does each second.
      const burst = Math.floor(random() * 6)
      const takes = Array.from({ length: burst }, () => windows[Math.floor(random() * 2)]!.take('7', LIMIT))
      for (const state of await Promise.all(takes)) if (state.retryAfterMs === 0) passedAt.push(clock.now())
      if (random() < 0.5) await windows[Math.floor(random() * 2)]!.sweep()
    }
    // Any 61 consecutive seconds (the steps a minute touches) hold at most the limit.
    const seconds = passedAt.map((ms) => Math.floor(ms / 1000))
    let most = 0
    for (let i = 0, j = 0; j < seconds.length; j++) {
      while (seconds[j]! - seconds[i]! >= 61) i++
      most = Math.max(most, j - i + 1)
    }
    expect(most).toBe(LIMIT)
    // Once both gave back what they hold, the row counts exactly the requests that passed in its window.
    for (const window of windows) await window.sweep({ all: true })
    const step = Math.floor(clock.now() / 1000)
    const counted = totalOf(current(decodeSteps(await readRateLimit(connections.first.db, 'secret-key', '7')), MINUTE, step))
    expect(counted).toBe(seconds.filter((second) => second > step - 61).length)
  })
})

describe('failed logins shared by two processes', () => {
  test('a failure through one is counted by the other at its next fresh read', async () => {
    const [first, second] = processes
    for (let i = 0; i < 3; i++) await first.loginFailures.add('192.0.2.1')
    expect(await second.loginFailures.count('192.0.2.1')).toBe(3)
    expect(await first.loginFailures.count('192.0.2.1')).toBe(3)
    await second.loginFailures.add('192.0.2.1')
    expect(await second.loginFailures.count('192.0.2.1')).toBe(4)
    // Read a moment ago, the first trusts what it read for a second.
    expect(await first.loginFailures.count('192.0.2.1')).toBe(3)
    clock.advance(1000)
    expect(await first.loginFailures.count('192.0.2.1')).toBe(4)
  })
})

describe('a send rate shared by two processes', () => {
  test('the bucket is one: what one spends, the other cannot', async () => {
    const [first, second] = processes.map((limits) => limits.sendRate)
    const spend = async (bucket: RateLimits['sendRate']) => (await bucket.ready(5, 2)) && bucket.take(5)
    expect([await spend(first!), await spend(second!), await spend(first!), await spend(second!)]).toEqual([true, true, false, false])
    expect(first!.starved()).toEqual([5])
    clock.advance(500)
    expect([await spend(second!), await spend(first!)]).toEqual([true, false])
  })

  test('under sends at random through both, no span of T seconds spends more than rate × (1 + T)', async () => {
    const RATE = 40
    const random = seeded(11)
    const buckets = processes.map((limits) => limits.sendRate)
    const spentAt: number[] = []
    for (let round = 0; round < 800; round++) {
      // Mostly bursts close together, now and then a pause long enough for the bucket to fill.
      clock.advance(random() < 0.1 ? 800 + Math.floor(random() * 800) : Math.floor(random() * 60))
      const bucket = buckets[Math.floor(random() * 2)]!
      for (let n = Math.floor(random() * 16); n > 0; n--) if ((await bucket.ready(3, RATE)) && bucket.take(3)) spentAt.push(clock.now())
    }
    expect(spentAt.length).toBeGreaterThan(RATE * 10)
    // The most any span spent beyond what the bound allows it: never anything.
    let excess = -Infinity
    for (let i = 0; i < spentAt.length; i++) {
      for (let j = i; j < spentAt.length; j++) excess = Math.max(excess, j - i + 1 - (RATE + (RATE * (spentAt[j]! - spentAt[i]!)) / 1000))
    }
    expect(excess).toBeLessThanOrEqual(1e-9)
  })
})
