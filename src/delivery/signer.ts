import { signMessage, type SigningKey } from './dkim.ts'

export interface Signer {
  sign(message: Uint8Array, keys: readonly SigningKey[], at: number): Promise<string>
  close(): void
}

/**
 * Signs on `workers` worker threads, so that RSA (about a millisecond a message) runs on the
 * other cores while the main thread speaks SMTP. With no workers it signs in place. The threads
 * start with the first signature.
 */
export function createSigner(workers: number): Signer {
  if (workers === 0) return { sign: signMessage, close() {} }
  const pending = new Map<number, { resolve(header: string): void; reject(error: Error): void }>()
  let pool: Worker[] | undefined
  const spawn = () => Array.from({ length: workers }, () => {
    const worker = new Worker(new URL('./dkim-worker.ts', import.meta.url))
    worker.onmessage = (event: MessageEvent) => {
      const { id, header, error } = event.data
      const waiter = pending.get(id)
      pending.delete(id)
      if (error) waiter?.reject(new Error(error))
      else waiter?.resolve(header)
    }
    worker.unref()
    return worker
  })
  let next = 0
  return {
    sign(message, keys, at) {
      const id = next++
      pool ??= spawn()
      const worker = pool[id % pool.length]!
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject })
        worker.postMessage({ id, message, keys, at })
      })
    },
    close() {
      for (const worker of pool ?? []) worker.terminate()
      pool = undefined
      for (const waiter of pending.values()) waiter.reject(new Error('signer closed'))
      pending.clear()
    },
  }
}
