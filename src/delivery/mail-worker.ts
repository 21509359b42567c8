// A mail worker: builds messages and DKIM-signs them off the main thread (see mail-work.ts).
import { buildMessage, type MessageParts } from '../core/emails/message.ts'
import { signMessage, type SigningKey } from './dkim.ts'

declare const self: Worker

type Job = { id: number; op: 'build'; parts: MessageParts } | { id: number; op: 'sign'; message: Uint8Array; keys: SigningKey[]; at: number }

self.onmessage = async (event: MessageEvent<Job>) => {
  const job = event.data
  try {
    if (job.op === 'build') {
      const built = await buildMessage(job.parts)
      // Handed over, not copied; a view into a larger (pooled) buffer is copied out first.
      const own = built.byteOffset === 0 && built.byteLength === built.buffer.byteLength ? built : new Uint8Array(built)
      self.postMessage({ id: job.id, result: own }, [own.buffer as ArrayBuffer])
    } else {
      self.postMessage({ id: job.id, result: await signMessage(job.message, job.keys, job.at) })
    }
  } catch (error) {
    self.postMessage({ id: job.id, error: String((error as Error)?.message ?? error) })
  }
}
