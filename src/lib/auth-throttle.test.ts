import { describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { createAuthThrottle } from './auth-throttle.ts'

describe('the login throttle', () => {
  test('lets three failures go unslowed, then slows each login more, up to 8 s', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    const waits = []
    for (let i = 0; i < 9; i++) {
      waits.push(await throttle.delay('192.0.2.1'))
      await throttle.fail('192.0.2.1')
    }
    expect(waits).toEqual([0, 0, 0, 500, 1000, 2000, 4000, 8000, 8000])
    expect(await throttle.delay('192.0.2.9')).toBe(0)
  })

  test('never locks an address out: after a hundred failures the next login waits 8 s, no more', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    for (let i = 0; i < 100; i++) await throttle.fail('192.0.2.2')
    expect(await throttle.delay('192.0.2.2')).toBe(8000)
  })

  test('forgets failures as they leave the last ten minutes', async () => {
    const clock = new ManualClock()
    const throttle = createAuthThrottle(clock)
    for (let i = 0; i < 5; i++) await throttle.fail('192.0.2.5')
    clock.advance(5 * 60_000)
    await throttle.fail('192.0.2.5')
    expect(await throttle.delay('192.0.2.5')).toBe(4000)
    clock.advance(5 * 60_000 + 10_000)
    expect(await throttle.delay('192.0.2.5')).toBe(0)
  })

  test('counts an IPv6 client by its /64: a guesser that changes address within it is slowed all the same', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    for (let i = 1; i <= 5; i++) await throttle.fail(`2001:db8:7:1::${i.toString(16)}`)
    expect(await throttle.delay('2001:db8:7:1:ffff::1')).toBe(2000)
    expect(await throttle.delay('2001:db8:7:2::1')).toBe(0)
  })

  test('admits a clean address at once, however many logins it sends together', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    expect(await Promise.all(Array.from({ length: 50 }, () => throttle.admit('192.0.2.6')))).toEqual(Array(50).fill(true))
  })

  test('lets eight logins of a slowed address wait at once and turns the ninth away; once they are done, more may wait', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    for (let i = 0; i < 3; i++) await throttle.fail('192.0.2.7')
    const waiting = Array.from({ length: 8 }, () => throttle.admit('192.0.2.7'))
    expect(await throttle.admit('192.0.2.7')).toBe(false)
    expect(await throttle.admit('192.0.2.8')).toBe(true)
    expect(await Promise.all(waiting)).toEqual(Array(8).fill(true))
    expect(await throttle.admit('192.0.2.7')).toBe(true)
  })
})

describe('a login under two keys (an address and an account)', () => {
  test('waits as its most-failed key says, and counts its failure under both', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    for (let i = 0; i < 4; i++) await throttle.fail('192.0.2.20', 'account jane@example.com')
    expect(await throttle.delay('192.0.2.21', 'account jane@example.com')).toBe(1000)
    expect(await throttle.delay('192.0.2.20', 'account joe@example.com')).toBe(1000)
    expect(await throttle.delay('192.0.2.21', 'account joe@example.com')).toBe(0)
  })

  test('is turned away when eight logins wait under either key', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    for (let i = 0; i < 3; i++) await throttle.fail('account jane@example.com')
    const waiting = Array.from({ length: 8 }, (_, i) => throttle.admit(`192.0.2.${30 + i}`, 'account jane@example.com'))
    expect(await throttle.admit('192.0.2.40', 'account jane@example.com')).toBe(false)
    expect(await throttle.admit('192.0.2.40', 'account joe@example.com')).toBe(true)
    expect(await Promise.all(waiting)).toEqual(Array(8).fill(true))
  })
})
