import { describe, expect, test } from 'bun:test'
import { coalesce } from './coalesce.ts'

describe('coalesce', () => {
  test('calls while one runs share it and make it run once more, never at the same time', async () => {
    let runs = 0
    let overlapping = 0
    let inside = 0
    const take = coalesce(async () => {
      inside++
      overlapping = Math.max(overlapping, inside)
      await Bun.sleep(5)
      inside--
      runs++
      return 1
    }, () => false)
    const answers = await Promise.all([take(), take(), take()])
    expect(runs).toBe(2)
    expect(overlapping).toBe(1)
    expect(answers).toEqual([2, 2, 2])
    expect(take.pending()).toBeUndefined()
  })

  test('runs nothing once stopped', async () => {
    let runs = 0
    const take = coalesce(async () => ++runs, () => true)
    expect(await take()).toBe(0)
    expect(runs).toBe(0)
  })
})
