import { describe, expect, test } from 'bun:test'
import { createPump } from './pump.ts'

const hops = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

describe('createPump', () => {
  test('rounds never overlap and repeat while they say there is more', async () => {
    let inside = 0
    let most = 0
    let left = 3
    const pump = createPump(async () => {
      most = Math.max(most, ++inside)
      await hops(2)
      inside--
      return --left > 0
    }, () => {})
    pump.start()
    await pump.idle()
    expect(left).toBe(0)
    expect(most).toBe(1)
  })

  test('a wake at any moment of a round, its end included, is followed by a round that starts after it', async () => {
    for (let delay = 0; delay < 12; delay++) {
      let clock = 0
      let lastStart = -1
      const pump = createPump(async () => {
        lastStart = ++clock
        await hops(2)
        return false
      }, () => {})
      pump.start()
      await hops(delay)
      const wokenAt = ++clock
      pump.wake()
      await pump.idle()
      expect({ delay, after: lastStart > wokenAt }).toEqual({ delay, after: true })
      await pump.stop()
    }
  })

  test('nothing runs after stop', async () => {
    let rounds = 0
    const pump = createPump(async () => (rounds++, false), () => {})
    pump.start()
    await pump.stop()
    const before = rounds
    pump.wake()
    await pump.idle()
    expect(rounds).toBe(before)
  })
})
