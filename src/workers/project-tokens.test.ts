import { describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { createProjectTokens, type SendRate } from './project-tokens.ts'

/** A send rate whose tokens are given per project; it records the rate each `ready` was asked at. */
function sendRateOf(tokens: Record<number, number>) {
  const asked: Array<[number, number]> = []
  const sendRate: SendRate = {
    async ready(projectId, rate) {
      asked.push([projectId, rate])
      return (tokens[projectId] ?? 0) > 0
    },
    take(projectId) {
      if ((tokens[projectId] ?? 0) <= 0) return false
      tokens[projectId]!--
      return true
    },
    starved: () => [9],
  }
  return { sendRate, asked }
}

describe('the projects\' tokens, as the delivery loop sees them', () => {
  test('a project\'s own rate is read once a while; a project without one has the default', async () => {
    const clock = new ManualClock()
    const { sendRate, asked } = sendRateOf({ 1: 5, 2: 5 })
    const reads: number[] = []
    const tokens = createProjectTokens({ sendRate, clock, defaultRate: 10, rateOf: async (id) => (reads.push(id), id === 1 ? 3 : null) })
    const round = tokens.round()
    expect(await round.ready(1)).toBe(true)
    expect(await round.ready(1)).toBe(true)
    expect(await round.ready(2)).toBe(true)
    expect(asked).toEqual([[1, 3], [1, 3], [2, 10]])
    expect(reads).toEqual([1, 2])
    clock.advance(31_000)
    await tokens.round().ready(1)
    expect(reads).toEqual([1, 2, 1])
  })

  test('a project found without a token stays without one for the rest of the round, and only that round', async () => {
    const tokens = { 1: 0 } as Record<number, number>
    const { sendRate, asked } = sendRateOf(tokens)
    const projects = createProjectTokens({ sendRate, clock: new ManualClock(), defaultRate: 10, rateOf: async () => null })
    const round = projects.round()
    expect(await round.ready(1)).toBe(false)
    tokens[1] = 1
    expect(await round.ready(1)).toBe(false)
    expect(asked.length).toBe(1)
    expect(await projects.round().ready(1)).toBe(true)
  })

  test('a token found but gone when spent leaves the project without one for the round', async () => {
    const tokens = { 1: 1 } as Record<number, number>
    const { sendRate } = sendRateOf(tokens)
    const projects = createProjectTokens({ sendRate, clock: new ManualClock(), defaultRate: 10, rateOf: async () => null })
    const round = projects.round()
    expect(await round.ready(1)).toBe(true)
    expect(round.take(1)).toBe(true)
    tokens[1] = 0
    expect(round.take(1)).toBe(false)
    tokens[1] = 1
    expect(await round.ready(1)).toBe(false)
    expect(projects.starved()).toEqual([9])
  })
})
