import { describe, expect, test } from 'bun:test'
import { afterAttempt, disablesWebhook, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './webhook-retries.ts'

const NOW = Date.parse('2026-11-01T12:00:00Z')
const MINUTE = 60_000
const failed = { ok: false }
const ok = { ok: true }

describe('the retry schedule', () => {
  test('makes six attempts over about an hour: at 0, 1, 6, 16, 36 and 66 minutes', () => {
    expect(MAX_ATTEMPTS).toBe(6)
    let at = 0
    const times = [0]
    for (const delay of RETRY_DELAYS_MS) times.push((at += delay) / MINUTE)
    expect(times).toEqual([0, 1, 6, 16, 36, 66])
  })

  test('a failed first call is tried again a minute later', () => {
    expect(afterAttempt(failed, 1, NOW)).toEqual({ state: 'pending', nextAttemptAt: NOW + MINUTE })
  })

  test('each failed call waits the delay of its place in the schedule', () => {
    expect([1, 2, 3, 4, 5].map((attempts) => (afterAttempt(failed, attempts, NOW) as { nextAttemptAt: number }).nextAttemptAt - NOW)).toEqual([...RETRY_DELAYS_MS])
  })

  test('the sixth failed call fails the delivery', () => {
    expect(afterAttempt(failed, 6, NOW)).toEqual({ state: 'failed' })
    expect(afterAttempt(failed, 7, NOW)).toEqual({ state: 'failed' })
  })

  test('a 2xx delivers it, on any attempt', () => {
    expect(afterAttempt(ok, 1, NOW)).toEqual({ state: 'delivered' })
    expect(afterAttempt(ok, 6, NOW)).toEqual({ state: 'delivered' })
  })

  test('a refused target fails it at once: calling again cannot help', () => {
    expect(afterAttempt({ ok: false, refused: true }, 1, NOW)).toEqual({ state: 'failed' })
  })
})

describe('disabling', () => {
  test('happens at the thirtieth failure in a row, not before', () => {
    expect(disablesWebhook(29)).toBe(false)
    expect(disablesWebhook(30)).toBe(true)
  })
})
