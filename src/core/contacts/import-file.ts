import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { Db } from '../../db/schema.ts'
import { invalid, notFound } from '../../lib/errors.ts'
import { findProject } from '../projects/index.ts'
import { planColumns, readRow, type ColumnMapping, type ColumnPlan, type CsvContact } from './csv-columns.ts'
import { CsvReader, type CsvItem, type CsvPosition } from '../../lib/csv-reader.ts'
import { upsertChunk } from './import-chunk.ts'

/** A record (a CSV row) longer than this is reported as failed instead of read. */
export const MAX_RECORD_BYTES = 1024 * 1024
/** Rows written in one transaction. */
export const CHUNK_ROWS = 5000
/** Failed rows kept with their reasons; the rest are only counted. */
export const MAX_ERRORS = 100
const READ_BYTES = 256 * 1024

export interface RowError {
  line: number
  message: string
}

export interface ImportProgress {
  /** Where the next chunk starts. */
  position: CsvPosition
  bytesTotal: number
  processedRows: number
  createdCount: number
  updatedCount: number
  failedCount: number
  /** The first failed rows. */
  errors: RowError[]
}

export interface ImportSummary extends ImportProgress {
  /** False when the import was stopped (by `signal`) before the end of the file. */
  complete: boolean
}

/** Runs `work` in one write transaction: the server's writer, or a plain transaction. */
export type Write = <T>(work: (trx: Db) => Promise<T>) => Promise<T>

export interface ImportOptions {
  /** The importer's choice of what each column is (see planColumns); without it the header is read as named. */
  mapping?: ColumnMapping
  /** Progress to go on from: an import resumed after an interruption. */
  resume?: ImportProgress
  /** Runs in each chunk's transaction after its contacts: where a job records its progress. */
  onChunk?: (trx: Db, progress: ImportProgress) => Promise<void>
  /** After each chunk's commit. */
  onProgress?: (progress: ImportProgress) => void
  /** Stops the import after the chunk being written. */
  signal?: AbortSignal
  now?: () => number
  chunkRows?: number
}

export interface CsvHeader {
  plan: ColumnPlan
  /** Where the first data row starts. */
  next: CsvPosition
}

/** Reads a CSV's header line: a 422 when the file is empty or the header (with its mapping) cannot be imported. */
export async function readCsvHeader(path: string, mapping?: ColumnMapping): Promise<CsvHeader> {
  let first: CsvItem | undefined
  const reader = new CsvReader({ maxRecordBytes: MAX_RECORD_BYTES }, (item) => (first ??= item))
  let read = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) {
    reader.push(chunk)
    read += chunk.length
    if (first) break
    if (read > 2 * MAX_RECORD_BYTES) throw invalid('file', 'the header line is longer than 1 MiB')
  }
  if (!first) reader.end()
  const header = first as CsvItem | undefined
  if (!header) throw invalid('file', 'the file is empty: the first line must be a header naming the columns, one of them email')
  if (!header.fields) throw invalid('file', `the header on line ${header.line} cannot be read: ${header.error}`)
  return { plan: planColumns(header.fields, mapping), next: header.next }
}

/**
 * Imports the contacts of the CSV at `path` into a project, reading it as a stream in chunks of
 * `CHUNK_ROWS` rows; each chunk is one transaction through `write`. Rows that cannot be imported
 * are counted and reported by line, and the others imported.
 */
export async function importCsvFile(db: Db, write: Write, projectId: number, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  if (!(await findProject(db, projectId))) throw notFound(`Project ${projectId}`)
  const header = await readCsvHeader(path, options.mapping)
  const bytesTotal = (await stat(path)).size
  const progress: ImportProgress = options.resume
    ? { ...options.resume, bytesTotal, errors: [...options.resume.errors] }
    : { position: header.next, bytesTotal, processedRows: 0, createdCount: 0, updatedCount: 0, failedCount: 0, errors: [] }
  const chunkRows = options.chunkRows ?? CHUNK_ROWS
  const pending: CsvItem[] = []
  const reader = new CsvReader({ maxRecordBytes: MAX_RECORD_BYTES, start: progress.position }, (item) => pending.push(item))
  const chunk = (items: CsvItem[], end?: CsvPosition) => importChunk(write, projectId, header.plan, items, progress, options, end)
  for await (const bytes of createReadStream(path, { start: progress.position.offset, highWaterMark: READ_BYTES })) {
    reader.push(bytes)
    while (pending.length >= chunkRows) {
      await chunk(pending.splice(0, chunkRows))
      if (options.signal?.aborted) return { ...progress, complete: false }
    }
  }
  reader.end()
  const last = pending.at(-1)?.next ?? progress.position
  await chunk(pending.splice(0), { offset: bytesTotal, line: last.line })
  return { ...progress, complete: true }
}

/** Writes one chunk and moves `progress` past it once committed. */
async function importChunk(
  write: Write,
  projectId: number,
  plan: ColumnPlan,
  items: CsvItem[],
  progress: ImportProgress,
  options: ImportOptions,
  end?: CsvPosition,
): Promise<void> {
  const contacts: CsvContact[] = []
  const failed: RowError[] = []
  for (const item of items) {
    const result = item.fields ? readRow(item.fields, plan) : { ok: false as const, message: item.error! }
    if (result.ok) contacts.push(result.contact)
    else failed.push({ line: item.line, message: result.message })
  }
  const after: ImportProgress = {
    ...progress,
    position: end ?? items.at(-1)!.next,
    processedRows: progress.processedRows + items.length,
    failedCount: progress.failedCount + failed.length,
    errors: [...progress.errors, ...failed.slice(0, MAX_ERRORS - progress.errors.length)],
  }
  const now = (options.now ?? Date.now)()
  await write(async (trx) => {
    const outcome = await upsertChunk(trx, projectId, contacts, now)
    after.createdCount = progress.createdCount + outcome.created
    after.updatedCount = progress.updatedCount + outcome.updated
    await options.onChunk?.(trx, after)
  })
  Object.assign(progress, after)
  options.onProgress?.(progress)
}
