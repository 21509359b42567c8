import { describe, expect, test } from 'bun:test'
import { Readable } from 'node:stream'
import { createByteBudget, readMessage } from './message-budget.ts'

/** A DATA stream of `chunks` bytes each, as smtp-server hands one over. */
const streamOf = (...chunks: number[]) => Readable.from(chunks.map((size, i) => Buffer.alloc(size, 97 + i)))

describe('reading a message within a budget', () => {
  test('keeps the first bytes, reads the rest to its end and drops it, and gives back what it held once released', async () => {
    const budget = createByteBudget(1000)
    const message = await readMessage(streamOf(300, 300, 300), 500, budget)
    expect(message.kept.toString()).toBe('a'.repeat(300) + 'b'.repeat(200))
    expect([message.size, message.noRoom, budget.held]).toEqual([900, false, 500])
    message.release()
    message.release()
    expect(budget.held).toBe(0)
  })

  test('a message that arrives while the budget is spent keeps nothing and holds nothing', async () => {
    const budget = createByteBudget(1000)
    const first = await readMessage(streamOf(400, 400), 1000, budget)
    const second = await readMessage(streamOf(100, 150), 1000, budget)
    expect([second.noRoom, second.kept.length, second.size, budget.held]).toEqual([true, 0, 250, 800])
    first.release()
    expect(budget.held).toBe(0)
    expect(budget.full).toBe(false)
  })

  test('is full when all of it is held', async () => {
    const budget = createByteBudget(600)
    const held = await Promise.all([readMessage(streamOf(300), 300, budget), readMessage(streamOf(500), 300, budget)])
    expect(budget.full).toBe(true)
    for (const message of held) message.release()
    expect(budget.full).toBe(false)
  })

  test('a stream that fails gives back what it held', async () => {
    const budget = createByteBudget(1000)
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(200))
        this.destroy(new Error('connection lost'))
      },
    })
    await expect(readMessage(failing, 1000, budget)).rejects.toThrow('connection lost')
    expect(budget.held).toBe(0)
  })
})
