import { describe, expect, test } from 'bun:test'
import { SITE_RULES } from './rules.ts'
import { countStarted, holdOf, limitsOf, newSiteRow, stepBack, suspend, throttle, warmupOf, type SiteSettings } from './site-state.ts'

const MINUTE = 60_000
const DAY = 86_400_000
const T0 = Date.parse('2026-11-23T10:00:00Z')
const base = { connections: 8, messagesPerConnection: 100, messagesPerMinute: null }
const settings: SiteSettings = { defaults: base, warmup: { on: true, schedule: [10, 20] } }
const gmail = SITE_RULES.find((rule) => rule.name === 'gmail')!

describe('a throttled site', () => {
  test('halves its connections and, without a cap of its own, the rate it had in the last minute', () => {
    const row = newSiteRow('mx.example.com', null, ['mx.example.com'], T0)
    throttle(row, '421 4.7.28 slow down', 30 * MINUTE, 40, base, 0, MINUTE, T0)
    expect(limitsOf(row, base)).toEqual({ connections: 4, messagesPerConnection: 100, messagesPerMinute: 20 })
  })

  test('deepens at most once a minute, and each reply starts the quiet period again', () => {
    const row = newSiteRow('mx.example.com', null, [], T0)
    expect(throttle(row, 'a', 30 * MINUTE, 40, base, 0, MINUTE, T0)).toBe(true)
    expect(throttle(row, 'b', 30 * MINUTE, 40, base, T0, MINUTE, T0 + 10_000)).toBe(false)
    expect(row).toMatchObject({ throttle_level: 1, throttle_until: T0 + 10_000 + 30 * MINUTE, throttle_reason: 'b' })
    expect(throttle(row, 'c', 30 * MINUTE, 40, base, T0, MINUTE, T0 + MINUTE)).toBe(true)
    expect(limitsOf(row, base)).toMatchObject({ connections: 2, messagesPerMinute: 10 })
  })

  test('comes back a level per quiet period, and is whole again at level 0', () => {
    const row = newSiteRow('mx.example.com', null, [], T0)
    throttle(row, 'a', 30 * MINUTE, 40, base, 0, MINUTE, T0)
    throttle(row, 'b', 30 * MINUTE, 40, base, T0, MINUTE, T0 + MINUTE)
    expect(stepBack(row, T0 + 20 * MINUTE)).toBe(false)
    expect(stepBack(row, T0 + 31 * MINUTE)).toBe(true)
    expect(row.throttle_level).toBe(1)
    expect(stepBack(row, T0 + 62 * MINUTE)).toBe(true)
    expect(limitsOf(row, base)).toEqual(base)
    expect(row).toMatchObject({ throttle_level: 0, throttle_base_rate: null, throttle_reason: null })
  })
})

describe('what holds a site back', () => {
  test('a suspension, until it ends', () => {
    const row = newSiteRow('gmail', 'gmail', [], T0)
    suspend(row, '554 5.7.1 blocked', T0 + 2 * 60 * MINUTE)
    expect(holdOf(row, gmail, settings, T0 + MINUTE)).toMatchObject({ until: T0 + 2 * 60 * MINUTE, category: 'suspended' })
    expect(holdOf(row, gmail, settings, T0 + 3 * 60 * MINUTE)).toBeUndefined()
  })

  test("the day's warm-up cap of a large provider, counted by UTC day from its first delivery", () => {
    const row = newSiteRow('gmail', 'gmail', [], T0)
    for (let i = 0; i < 9; i++) countStarted(row, T0)
    expect(holdOf(row, gmail, settings, T0)).toBeUndefined()
    countStarted(row, T0)
    expect(holdOf(row, gmail, settings, T0)).toMatchObject({ until: Date.parse('2026-11-24T00:00:00Z'), category: 'warmup' })
    row.first_delivery_at = T0
    expect(warmupOf(row, gmail, settings, T0 + DAY)).toMatchObject({ day: 2, cap: 20, sentToday: 0 })
    expect(warmupOf(row, gmail, settings, T0 + 2 * DAY)).toBeUndefined()
  })

  test('no cap for a site without a warm-up rule, or with warm-up off', () => {
    const row = newSiteRow('mx.example.com', null, [], T0)
    for (let i = 0; i < 50; i++) countStarted(row, T0)
    expect(holdOf(row, undefined, settings, T0)).toBeUndefined()
    expect(warmupOf(row, gmail, { ...settings, warmup: { on: false, schedule: [1] } }, T0)).toBeUndefined()
  })
})
