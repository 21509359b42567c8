import { describe, expect, test } from 'bun:test'
import { domainFilter, mayCancel, mayChangeQueue, mayRetry, stateCounts, stateFilter, totalPending } from './queue-view.ts'

describe('the counts', () => {
  test('name every pending state in order, those with none at 0', () => {
    const counts = { byState: { deferred: 4, scheduled: 1 }, byDomain: [] }
    expect(stateCounts(counts)).toEqual([
      { state: 'scheduled', count: 1 },
      { state: 'queued', count: 0 },
      { state: 'sending', count: 0 },
      { state: 'deferred', count: 4 },
      { state: 'paused', count: 0 },
    ])
    expect(totalPending(counts)).toBe(5)
    expect(totalPending({ byState: {}, byDomain: [] })).toBe(0)
  })
})

describe('what a delivery allows', () => {
  test('a deferred one is retried; what has not left yet is cancelled; one being sent neither', () => {
    expect(['scheduled', 'queued', 'sending', 'deferred', 'paused'].map((state) => [state, mayRetry({ state } as never), mayCancel({ state } as never)])).toEqual([
      ['scheduled', false, true],
      ['queued', false, true],
      ['sending', false, false],
      ['deferred', true, true],
      ['paused', false, false],
    ])
  })

  test('owners, admins and members retry and cancel; viewers only look', () => {
    expect(['owner', 'admin', 'member', 'viewer'].map(mayChangeQueue)).toEqual([true, true, true, false])
  })
})

test('the filters: a domain trimmed and lower-cased, a state only when it is one', () => {
  expect(domainFilter('  Stuck.Example. ')).toBe('stuck.example')
  expect(domainFilter('   ')).toBeUndefined()
  expect(stateFilter('deferred')).toBe('deferred')
  expect(stateFilter('')).toBeUndefined()
  expect(stateFilter('delivered')).toBeUndefined()
})
