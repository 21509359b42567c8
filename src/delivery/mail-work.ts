import { buildMessage, type MessageParts } from '../core/emails/message.ts'
import { createWorkerPool } from '../lib/worker-pool.ts'
import { signMessage, type SigningKey } from './dkim.ts'

/** The CPU-heavy work of mail: building a message (MIME, the text part) and signing it (RSA). */
export interface MailWork {
  build(parts: MessageParts): Promise<Uint8Array>
  sign(message: Uint8Array, keys: readonly SigningKey[], at: number): Promise<string>
  close(): void
}

/**
 * The worker's script: beside this module when run from source. In the compiled binary it is an
 * entry point of its own (scripts/build.ts), named by its path under src/, the bundle's root.
 */
const WORKER_SCRIPT = import.meta.url.includes('/$bunfs/') ? './delivery/mail-worker.ts' : new URL('./mail-worker.ts', import.meta.url)

/**
 * Mail work on `workers` threads, so that it runs on the other cores while the main thread serves
 * HTTP, SQLite and SMTP. With no workers it runs in place.
 */
export function createMailWork(workers: number): MailWork {
  if (workers === 0) return { build: buildMessage, sign: signMessage, close() {} }
  const pool = createWorkerPool(WORKER_SCRIPT, workers)
  return {
    build: (parts) => pool.run<Uint8Array>({ op: 'build', parts }),
    sign: (message, keys, at) => pool.run<string>({ op: 'sign', message, keys, at }),
    close: () => pool.close(),
  }
}
