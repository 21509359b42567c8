import { describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { createAuthThrottle, MAX_WAITING, type AuthThrottle } from './auth-throttle.ts'

/** Whether a login that would succeed under `addresses` gets to its check (true) or is turned away (false). */
const admit = (throttle: AuthThrottle, ...addresses: string[]) =>
  throttle.run(addresses, async () => true, () => false, () => new Error('turned away')).catch(() => false)

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

  test('counts each login from its start: of 64 wrong ones sent at once, three are checked at once, eight after waiting, the rest turned away unchecked', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    let checks = 0
    const wrong = async () => {
      checks++
      throw new Error('wrong key')
    }
    const began = Date.now()
    const outcomes = await Promise.all(Array.from({ length: 64 }, () => throttle.run(['192.0.2.6'], wrong, () => true, () => new Error('turned away')).catch((error: Error) => error.message)))
    expect(checks).toBe(3 + MAX_WAITING)
    expect(outcomes.filter((outcome) => outcome === 'turned away')).toHaveLength(64 - 3 - MAX_WAITING)
    expect(Date.now() - began).toBeGreaterThanOrEqual(7900)
    // Eleven failures: the next login waits the longest.
    expect(await throttle.delay('192.0.2.6')).toBe(8000)
  }, 20_000)

  test('a remembered key (accepted a moment ago) is not counted as under way: an application\'s parallel requests pass while its address is clean', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    const right = async () => 'served'
    const answers = await Promise.all(Array.from({ length: 50 }, () => throttle.run(['192.0.2.9'], right, () => false, () => new Error('turned away'), true)))
    expect(answers).toEqual(Array(50).fill('served'))
  })

  test('lets eight logins of a slowed address wait at once and turns the ninth away; once they are done, more may wait', async () => {
    const throttle = createAuthThrottle(new ManualClock())
    for (let i = 0; i < 3; i++) await throttle.fail('192.0.2.7')
    const waiting = Array.from({ length: 8 }, () => admit(throttle, '192.0.2.7'))
    expect(await admit(throttle, '192.0.2.7')).toBe(false)
    expect(await admit(throttle, '192.0.2.8')).toBe(true)
    expect(await Promise.all(waiting)).toEqual(Array(8).fill(true))
    expect(await admit(throttle, '192.0.2.7')).toBe(true)
  }, 20_000)
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
    const waiting = Array.from({ length: 8 }, (_, i) => admit(throttle, `192.0.2.${30 + i}`, 'account jane@example.com'))
    expect(await admit(throttle, '192.0.2.40', 'account jane@example.com')).toBe(false)
    expect(await admit(throttle, '192.0.2.40', 'account joe@example.com')).toBe(true)
    expect(await Promise.all(waiting)).toEqual(Array(8).fill(true))
  }, 20_000)
})
