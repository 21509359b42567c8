import { CompiledQuery } from 'kysely'
import type { Db } from './schema.ts'
import { writeTransaction } from './transaction.ts'

type Operation<T> = (trx: Db) => Promise<T>

interface Pending {
  operation: Operation<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

/**
 * Group commit. Writes from concurrent requests are committed together in one short transaction;
 * each caller's promise settles only after that commit, so no answer is sent for a write that is
 * not durable. Each operation runs inside its own savepoint: one that fails is rolled back alone
 * and rejects alone, and its neighbours commit.
 */
export interface WriteOptions {
  /**
   * The write may wait this long (ms) for others to join its transaction: for writes that come
   * one at a time at a high rate (a delivery's outcome as each reply arrives), which would
   * otherwise each commit alone.
   */
  gatherMs?: number
}

export interface Writer {
  run<T>(operation: Operation<T>, options?: WriteOptions): Promise<T>
  /** Resolves when everything queued so far is committed or failed. */
  drain(): Promise<void>
  /** Transactions committed and operations run so far: how well writes are being grouped. */
  stats(): { batches: number; operations: number }
}

export function createWriter(db: Db, maxBatch = 1000): Writer {
  const queue: Pending[] = []
  const counts = { batches: 0, operations: 0 }
  let flushing: Promise<void> | undefined
  let gathering: ReturnType<typeof setTimeout> | undefined

  const schedule = (gatherMs = 0) => {
    if (flushing) return
    if (gatherMs > 0) {
      gathering ??= setTimeout(() => ((gathering = undefined), schedule()), gatherMs)
      return
    }
    clearTimeout(gathering)
    gathering = undefined
    // setImmediate lets the requests already read from the sockets join this batch.
    flushing = new Promise<void>((done) => setImmediate(done)).then(flush).finally(() => {
      flushing = undefined
      if (queue.length > 0) schedule()
    })
  }

  const flush = async () => {
    const batch = queue.splice(0, maxBatch)
    const outcomes: Array<(() => void) | undefined> = []
    try {
      await writeTransaction(db, async (trx) => {
        for (const item of batch) outcomes.push(await runInSavepoint(trx, item))
      })
      counts.batches++
      counts.operations += batch.length
      for (const settle of outcomes) settle?.()
    } catch (error) {
      // The commit itself failed: nothing of this batch is durable.
      for (const item of batch) item.reject(error)
    }
  }

  return {
    run<T>(operation: Operation<T>, options: WriteOptions = {}) {
      return new Promise<T>((resolve, reject) => {
        queue.push({ operation, resolve: resolve as (value: unknown) => void, reject })
        schedule(options.gatherMs)
      })
    },
    async drain() {
      if (gathering) schedule()
      while (flushing) await flushing
    },
    stats: () => ({ ...counts }),
  }
}

/** Runs one operation; returns how to settle its caller once the batch is committed. */
// Compiled once: they run twice for every write.
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT op')
const RELEASE = CompiledQuery.raw('RELEASE op')
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO op')

async function runInSavepoint(trx: Db, item: Pending): Promise<() => void> {
  await trx.executeQuery(SAVEPOINT)
  try {
    const value = await item.operation(trx)
    await trx.executeQuery(RELEASE)
    return () => item.resolve(value)
  } catch (error) {
    await trx.executeQuery(ROLLBACK_TO)
    await trx.executeQuery(RELEASE)
    return () => item.reject(error)
  }
}
