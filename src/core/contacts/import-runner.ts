import { mkdir, readdir, rm } from 'node:fs/promises'
import { PRIVATE_DIR } from '../../lib/files.ts'
import { join } from 'node:path'
import { giveBack, type Claiming } from '../../db/claims.ts'
import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import { AppError } from '../../lib/errors.ts'
import type { Logger } from '../../lib/logger.ts'
import { importCsvFile, type Write } from './import-file.ts'
import { claimImport, finishImport, saveProgress, waitingImportIds, type ImportRow } from './imports.repository.ts'
import { progressOf } from './imports.service.ts'
import { dropUpload, fetchUpload } from './import-uploads.repository.ts'

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

const UPLOADS = 'imports'

/** Where an import's upload is kept, relative to the data directory. */
export const uploadPath = (id: string) => join(UPLOADS, `${id}.csv`)

/**
 * Runs contact imports one after another in the background. Their state is in the database: an
 * import a stopped process was running is given back (at its stop, or once its claim's lease ran
 * out) and goes on from its last committed chunk.
 */
export function createImportRunner(deps: ImportRunnerDeps) {
  const { clock, logger } = deps
  let stopped = true
  let running: Promise<void> | undefined
  let again = false
  let abort = new AbortController()

  const kick = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    again = false
    running = runWaiting()
      .catch((error) => logger.error('IMPORT', 'claiming imports failed', { error: String(error) }))
      .finally(() => {
        running = undefined
        if (again) kick()
      })
  }

  async function runWaiting(): Promise<void> {
    let job: ImportRow | undefined
    while (!stopped && (job = await deps.claimant.write((trx) => claimImport(trx, deps.claimant, clock.now())))) {
      deps.claimant.held.hold('contact_imports', [job.id])
      // Settled or not: an import whose end could not be written is given back once its lease runs out.
      await run(job).finally(() => deps.claimant.held.letGo('contact_imports', [job!.id]))
    }
  }

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
    const dir = join(deps.dataDir, UPLOADS)
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR })
    const keep = new Set((await waitingImportIds(deps.db)).map((id) => `${id}.csv`))
    for (const name of await readdir(dir)) if (!keep.has(name)) await rm(join(dir, name), { force: true })
  }

  return {
    async start() {
      stopped = false
      abort = new AbortController()
      await removeLeftovers()
      kick()
    },
    /** A new import is waiting. */
    queued: kick,
    /** Resolves when no import is running. */
    async drain() {
      while (running) await running
    },
    async stop() {
      stopped = true
      abort.abort()
      while (running) await running
      await deps.write((trx) => giveBack(trx, 'contact_imports', deps.claimant.owner, clock.now())).finally(() => deps.claimant.held.clear('contact_imports'))
    },
  }
}

export type ImportRunner = ReturnType<typeof createImportRunner>

function failureMessage(error: unknown): string {
  if (error instanceof AppError) return error.message
  if ((error as NodeJS.ErrnoException)?.code === 'ENOENT') return 'The uploaded file is gone: upload it again'
  return 'The import stopped on an unexpected error; the server log has the details'
}
