import type { Readable } from 'node:stream'

/**
 * The bytes of messages one listener holds at once, from all its sessions together: what they
 * have read and not yet finished handling. Past `maxBytes` a new transaction waits (452) and a
 * message that arrives while it is full is read and dropped, so a crowd of senders cannot make
 * the listener hold more than this, whatever each may send.
 */
export function createByteBudget(maxBytes: number) {
  let held = 0
  return {
    get full() {
      return held >= maxBytes
    },
    get held() {
      return held
    },
    /** Takes `bytes` if there is room for them all; answers whether it did. */
    take(bytes: number): boolean {
      if (held + bytes > maxBytes) return false
      held += bytes
      return true
    },
    give(bytes: number) {
      held -= bytes
    },
  }
}

export type ByteBudget = ReturnType<typeof createByteBudget>

export interface ReceivedMessage {
  /** The first `keepBytes` of the message; all of it when it was no longer. Empty when `noRoom`. */
  kept: Buffer
  /** The bytes it had in all. */
  size: number
  /** Over the listener's SIZE (smtp-server counts it): for a 552. */
  tooBig: boolean
  /** The listener's budget ran out while it arrived: nothing was kept, for a 452. */
  noRoom: boolean
  /** Gives back what `kept` holds of the budget: once the message is handled. */
  release(): void
}

/**
 * Reads the DATA of a message to its end, keeping at most its first `keepBytes`, each of them
 * taken from `budget` as it comes; the rest is read and dropped.
 */
export async function readMessage(stream: Readable & { sizeExceeded?: boolean }, keepBytes: number, budget: ByteBudget): Promise<ReceivedMessage> {
  const chunks: Buffer[] = []
  let size = 0
  let held = 0
  let noRoom = false
  const release = () => {
    budget.give(held)
    held = 0
  }
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length
      if (noRoom || held >= keepBytes) continue
      const part = chunk.length > keepBytes - held ? chunk.subarray(0, keepBytes - held) : chunk
      if (budget.take(part.length)) {
        held += part.length
        chunks.push(part)
        continue
      }
      noRoom = true
      chunks.length = 0
      release()
    }
  } catch (error) {
    release()
    throw error
  }
  return { kept: Buffer.concat(chunks), size, tooBig: stream.sizeExceeded === true, noRoom, release }
}
