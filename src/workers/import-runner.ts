import { mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createWorker } from '../cluster/worker.ts'
import type { Claiming } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { AppError } from '../lib/errors.ts'
import { PRIVATE_DIR } from '../lib/files.ts'
import type { Logger } from '../lib/logger.ts'
import { claimImport, dropUpload, fetchUpload, finishImport, importCsvFile, mappingOf, progressOf, saveProgress, UPLOADS_DIR, waitingImportIds, type ImportRow, type Write } from '../core/contacts/index.ts'

export interface ImportRunnerDeps {
  db: Db
  write: Write
  clock: Clock
  logger: Logger
  /** Uploads are kept under it until their import ends. */
  dataDir: string
  chunkRows?: number
  /** This process, as its claims of imports name it. */
  claimant: Claiming
}

/**
 * How often the runner looks for waiting imports without being told. Wake-ups after commit (and, on
 * PostgreSQL, another process's NOTIFY) start an import at once; this finds one whose wake-up was
 * lost, e.g. a notification dropped while the listening connection was down.
 */
const IMPORT_POLL_MS = 5_000

/**
 * Runs contact imports one after another in the background. Their state is in the database: an
 * import a stopped process was running is given back (at its stop, or once its claim's lease ran
 * out) and goes on from its last committed chunk.
 */
export function createImportRunner(deps: ImportRunnerDeps) {
  const { clock, logger } = deps
  let abort = new AbortController()

  /** Claims the next waiting import and runs it; answers whether there was one (another may wait). */
  async function runNext(): Promise<boolean> {
    const [job] = await worker.claim(async (trx, claimant) => {
      const claimed = await claimImport(trx, claimant, clock.now())
      return claimed ? [claimed] : []
    }, (row) => row.id)
    if (!job) return false
    // Settled or not: an import whose end could not be written is given back once its lease runs out.
    await run(job).finally(() => worker.letGo([job.id]))
    return true
  }

  const worker = createWorker(
    { tag: 'IMPORT', failed: 'claiming imports failed', round: runNext, pollMs: IMPORT_POLL_MS, claims: { table: 'contact_imports', claimant: deps.claimant } },
    deps,
  )

  async function run(job: ImportRow): Promise<void> {
    const fields = { importId: job.id, projectId: job.project_id }
    logger.info('IMPORT', job.next_line === 0 ? 'import started' : 'import resumed', { ...fields, bytesProcessed: job.bytes_processed })
    const path = join(deps.dataDir, job.file_path)
    let outcome: { status: 'COMPLETED' | 'FAILED'; error: string | null }
    try {
      // Another process may have received the upload: its copy is read from the database.
      await fetchUpload(deps.db, job.id, path)
      const summary = await importCsvFile(deps.db, deps.write, job.project_id, path, {
        resume: progressOf(job),
        mapping: mappingOf(job),
        chunkRows: deps.chunkRows,
        now: clock.now,
        signal: abort.signal,
        onChunk: (trx, progress) => saveProgress(trx, job.id, progress, clock.now()).then(() => {}),
      })
      // Stopping: the import is given back, and whoever claims it next goes on from its last chunk.
      if (!summary.complete) return
      outcome = { status: 'COMPLETED', error: null }
      logger.info('IMPORTED', 'import completed', { ...fields, rows: summary.processedRows, created: summary.createdCount, updated: summary.updatedCount, failed: summary.failedCount })
    } catch (error) {
      outcome = { status: 'FAILED', error: failureMessage(error) }
      logger.warn('IMPORT[FAILED]', outcome.error!, { ...fields, error: error instanceof AppError ? undefined : String((error as Error)?.stack ?? error) })
    }
    await deps.write(async (trx) => {
      await finishImport(trx, job.id, outcome.status, outcome.error, clock.now())
      await dropUpload(trx, job.id)
    })
    await rm(path, { force: true })
  }

  /** Uploads whose import is over (or never began) are removed: the server stopped before it could. */
  async function removeLeftovers(): Promise<void> {
    const dir = join(deps.dataDir, UPLOADS_DIR)
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR })
    const keep = new Set((await waitingImportIds(deps.db)).map((id) => `${id}.csv`))
    for (const name of await readdir(dir)) if (!keep.has(name)) await rm(join(dir, name), { force: true })
  }

  return {
    async start() {
      abort = new AbortController()
      await removeLeftovers()
      worker.start()
    },
    /** A new import is waiting. */
    queued: worker.wake,
    /** Resolves when no import is running. */
    drain: worker.idle,
    /** Cuts the import under way short (it goes on from its last chunk, here or elsewhere); gives back what it holds. */
    async stop() {
      abort.abort()
      await worker.stop()
    },
  }
}

export type ImportRunner = ReturnType<typeof createImportRunner>

function failureMessage(error: unknown): string {
  if (error instanceof AppError) return error.message
  if ((error as NodeJS.ErrnoException)?.code === 'ENOENT') return 'The uploaded file is gone: upload it again'
  return 'The import stopped on an unexpected error; the server log has the details'
}
