import { CompiledQuery, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely'
import type { WorkTable } from './claims.ts'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'
import { isDeadlock } from './database-error.ts'
import { writeTransaction } from './transaction.ts'

type Operation<T> = (trx: Db) => Promise<T>

interface Pending {
  operation: Operation<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
  /** Times it was rolled back as a deadlock's victim and queued again. */
  retries: number
}

/** How often an operation chosen as a deadlock's victim is run again before its caller is told. */
const DEADLOCK_RETRIES = 5

/**
 * Group commit. Writes from concurrent requests are committed together in one short transaction;
 * each caller's promise settles only after that commit, so no answer is sent for a write that is
 * not durable. Each operation runs inside its own savepoint: one that fails is rolled back alone
 * and rejects alone, and its neighbours commit.
 *
 * On PostgreSQL other processes' batches lock the same rows in another order, and the server
 * breaks the deadlock by failing one statement. Its operation is rolled back to its savepoint and
 * queued for the next batch: run again in this one it would wait for the same locks, which the
 * rows its batch-mates locked before it keep held until the commit.
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

export interface WriterOptions {
  /** Operations per transaction at most. */
  maxBatch?: number
  /**
   * Called once a transaction committed, for each work table whose rows it said wait
   * (`rowsWait`): the composition root wakes the table's worker. `projects` are the projects whose
   * rows wait, when every operation that said so named its project; null when one did not.
   */
  wake?: (table: WorkTable, projects: ReadonlySet<number> | null) => void
}

/**
 * Says that rows of `table` wait, written in `trx` (of `projectId`, when the worker cares whose
 * they are): once its transaction committed, the writer wakes the table's worker (its `wake`
 * option). A worker woken before the commit could look before the rows are there (PostgreSQL's
 * other connections do not wait for the commit) and find nothing. Outside the writer's
 * transactions (a command's own) no worker of this process listens: nothing is done.
 */
export function rowsWait(trx: Db, table: WorkTable, projectId?: number): void {
  for (const plugin of trx.getExecutor().plugins) if (plugin instanceof Waiting) plugin.add(table, projectId)
}

/**
 * What a batch's operations said wait, carried on the batch's handle as a plugin that changes
 * no query: operations deep in services are given only the handle, and the writer reads it back
 * after the commit. Nothing is kept outside the batch.
 */
class Waiting implements KyselyPlugin {
  /** Each table said to wait, and its projects (null: one operation did not say whose). */
  readonly tables = new Map<WorkTable, Set<number> | null>()
  add(table: WorkTable, projectId: number | undefined): void {
    const projects = this.tables.has(table) ? this.tables.get(table)! : new Set<number>()
    if (projects !== null && projectId !== undefined) projects.add(projectId)
    this.tables.set(table, projectId === undefined ? null : projects)
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

export function createWriter(db: Db, options: WriterOptions = {}): Writer {
  const maxBatch = options.maxBatch ?? 1000

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
    const outcomes: Settle[] = []
    const waiting = new Waiting()
    try {
      await writeTransaction(db, async (connection) => {
        const trx = connection.withPlugin(waiting)
        const savepoints = savepointsOf(trx)
        for (const item of batch) outcomes.push(await runInSavepoint(trx, item, savepoints))
      })
      counts.batches++
      counts.operations += batch.length
      // Deadlocks' victims go first in the next batch, in their order.
      queue.unshift(...batch.filter((_, i) => outcomes[i] === AGAIN))
      for (const settle of outcomes) if (settle !== AGAIN) settle()
    } catch (error) {
      // The commit itself failed: nothing of this batch is durable.
      for (const item of batch) item.reject(error)
      return
    }
    // An operation rolled back to its savepoint may have said so too: a wake that finds nothing costs one look.
    for (const [table, projects] of waiting.tables) options.wake?.(table, projects)
  }

  return {
    run<T>(operation: Operation<T>, options: WriteOptions = {}) {
      return new Promise<T>((resolve, reject) => {
        queue.push({ operation, resolve: resolve as (value: unknown) => void, reject, retries: 0 })
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

/** What to do for an operation's caller once its batch is committed: answer it, or run it again. */
const AGAIN = 'again'
type Settle = (() => void) | typeof AGAIN

// Compiled once: they run for every write.
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT op')
const RELEASE = CompiledQuery.raw('RELEASE op')
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO op')
// A query without parameters goes by PostgreSQL's simple protocol, which takes several statements.
const NEXT_SAVEPOINT = CompiledQuery.raw('RELEASE op; SAVEPOINT op')

/**
 * How a batch's operations take and let go of their savepoints. SQLite's statements cost no
 * round trip: each is run on its own. On PostgreSQL each is one: an operation lets go of the one
 * before it as it takes its own, in one query, and COMMIT lets go of the last (one round trip an
 * operation instead of two).
 */
function savepointsOf(trx: Db) {
  if (dialectOf(trx) === 'sqlite') {
    return { take: () => trx.executeQuery(SAVEPOINT), letGo: () => trx.executeQuery(RELEASE) }
  }
  let first = true
  return {
    take: () => trx.executeQuery(first ? ((first = false), SAVEPOINT) : NEXT_SAVEPOINT),
    letGo: async () => {},
  }
}

type Savepoints = ReturnType<typeof savepointsOf>

/** Runs one operation; returns how to settle its caller once the batch is committed. */
async function runInSavepoint(trx: Db, item: Pending, savepoints: Savepoints): Promise<Settle> {
  await savepoints.take()
  try {
    const value = await item.operation(trx)
    await savepoints.letGo()
    return () => item.resolve(value)
  } catch (error) {
    await trx.executeQuery(ROLLBACK_TO)
    await savepoints.letGo()
    if (isDeadlock(error) && item.retries < DEADLOCK_RETRIES) {
      item.retries++
      return AGAIN
    }
    return () => item.reject(error)
  }
}
