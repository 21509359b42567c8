import { describe, expect, test } from 'bun:test'
import { createLimiter } from './limiter.ts'

describe('a limiter', () => {
  test('runs at most its size at once, and every task in the end, in the order they came', async () => {
    const limit = createLimiter(3)
    let running = 0
    let most = 0
    const started: number[] = []
    const task = (i: number) => async () => {
      started.push(i)
      most = Math.max(most, ++running)
      await Bun.sleep(5)
      running--
      return i
    }
    expect(await Promise.all(Array.from({ length: 20 }, (_, i) => limit(task(i))))).toEqual(Array.from({ length: 20 }, (_, i) => i))
    expect(most).toBe(3)
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i))
  })

  test('a task that fails gives its place to the next', async () => {
    const limit = createLimiter(1)
    const failed = limit(async () => {
      throw new Error('no')
    })
    const next = limit(async () => 'ran')
    await expect(failed).rejects.toThrow('no')
    expect(await next).toBe('ran')
  })
})
