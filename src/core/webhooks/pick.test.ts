import { describe, expect, test } from 'bun:test'
import { pickDeliveries, type DueWork } from './pick.ts'

const caps = { perWebhook: 4, perFailingWebhook: 1 }
const none = new Map<string, number>()

/** A webhook with `n` deliveries due, named `<webhook>.<i>`, the first due at `since`. */
const work = (webhookId: string, n: number, since = 0, failures = 0): DueWork => ({
  webhookId,
  failures,
  due: Array.from({ length: n }, (_, i) => ({ id: `${webhookId}.${i}`, at: since + i })),
})

describe('picking deliveries to call', () => {
  test('takes everything due when there is room and the caps allow', () => {
    expect(pickDeliveries([work('a', 2), work('b', 1, 5)], none, 16, caps)).toEqual(['a.0', 'b.0', 'a.1'])
  })

  test('never more than the room', () => {
    expect(pickDeliveries([work('a', 4), work('b', 4)], none, 3, caps)).toHaveLength(3)
    expect(pickDeliveries([work('a', 4)], none, 0, caps)).toEqual([])
  })

  test('webhooks take turns, the one waiting longest first', () => {
    expect(pickDeliveries([work('late', 3, 100), work('early', 3, 0)], none, 4, caps)).toEqual(['early.0', 'late.0', 'early.1', 'late.1'])
  })

  test('a webhook with a long queue gets no more than its cap, and leaves the rest of the room to others', () => {
    const picked = pickDeliveries([work('busy', 1000, 0), work('quiet', 2, 50)], none, 16, caps)
    expect(picked.filter((id) => id.startsWith('busy'))).toHaveLength(4)
    expect(picked.filter((id) => id.startsWith('quiet'))).toEqual(['quiet.0', 'quiet.1'])
  })

  test('calls already under way to a webhook count against its cap', () => {
    expect(pickDeliveries([work('a', 10)], new Map([['a', 3]]), 16, caps)).toEqual(['a.0'])
    expect(pickDeliveries([work('a', 10)], new Map([['a', 4]]), 16, caps)).toEqual([])
  })

  test('a webhook whose last call failed gets the smaller cap, so a hanging endpoint holds few places', () => {
    expect(pickDeliveries([work('dead', 10, 0, 3), work('fine', 10, 1)], none, 16, caps)).toEqual(['dead.0', 'fine.0', 'fine.1', 'fine.2', 'fine.3'])
  })
})
