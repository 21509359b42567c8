import type { Db } from '../../db/schema.ts'
import { deleteFinished } from './webhook-deliveries.repository.ts'

/** Rows deleted per write: the write lock is never held for long. */
const CHUNK = 2000

/**
 * Deletes the deliveries that finished (delivered or failed) before `before`, a chunk per write,
 * until none is left or `stopping` says so; answers how many went. Waiting and paused deliveries
 * are never touched, however old.
 */
export async function pruneFinished(write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>, before: number, stopping: () => boolean): Promise<number> {
  let deleted = 0
  for (;;) {
    const chunk = await write((trx) => deleteFinished(trx, before, CHUNK))
    deleted += chunk
    if (chunk < CHUNK || stopping()) return deleted
  }
}
