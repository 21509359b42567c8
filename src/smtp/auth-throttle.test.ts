import { describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { createAuthThrottle } from './auth-throttle.ts'

describe('the login throttle', () => {
  test('lets three failures go unslowed, then slows each answer more, up to 8 s', () => {
    const throttle = createAuthThrottle(new ManualClock())
    const waits = Array.from({ length: 9 }, () => throttle.fail('192.0.2.1'))
    expect(waits).toEqual([0, 0, 0, 500, 1000, 2000, 4000, 8000, 8000])
    expect(throttle.isBlocked('192.0.2.1')).toBe(false)
  })

  test('refuses an address for fifteen minutes after ten failures in ten minutes', () => {
    const clock = new ManualClock()
    const throttle = createAuthThrottle(clock)
    for (let i = 0; i < 10; i++) throttle.fail('192.0.2.2')
    expect(throttle.isBlocked('192.0.2.2')).toBe(true)
    expect(throttle.isBlocked('192.0.2.3')).toBe(false)
    clock.advance(15 * 60_000)
    expect(throttle.isBlocked('192.0.2.2')).toBe(false)
  })

  test('forgets failures after a success, or after ten quiet minutes', () => {
    const clock = new ManualClock()
    const throttle = createAuthThrottle(clock)
    for (let i = 0; i < 5; i++) throttle.fail('192.0.2.4')
    throttle.succeed('192.0.2.4')
    expect(throttle.fail('192.0.2.4')).toBe(0)
    for (let i = 0; i < 5; i++) throttle.fail('192.0.2.5')
    clock.advance(10 * 60_000 + 1)
    expect(throttle.fail('192.0.2.5')).toBe(0)
  })
})
