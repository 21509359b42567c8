import { join } from 'node:path'
import { stringify } from 'csv-stringify/sync'
import type { Db } from '../../db/schema.ts'
import { rowsWait } from '../../db/writer.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import type { ColumnMapping } from './csv-columns.ts'
import { MAX_ERRORS, type ImportProgress, type RowError } from './import-file.ts'
import * as repo from './imports.repository.ts'
import type { ImportRow } from './imports.repository.ts'
import { keepUpload } from './import-uploads.repository.ts'

/** The folder of the data directory where uploads are kept until their import ends. */
export const UPLOADS_DIR = 'imports'

/** Where an import's upload is kept, relative to the data directory. */
export const uploadPath = (id: string) => join(UPLOADS_DIR, `${id}.csv`)

export const toImportJob = (row: ImportRow) => ({
  id: row.id,
  status: row.status,
  fileName: row.file_name,
  processedRows: row.processed_rows,
  createdCount: row.created_count,
  updatedCount: row.updated_count,
  failedCount: row.failed_count,
  errors: JSON.parse(row.errors) as RowError[],
  error: row.error,
  bytesTotal: row.bytes_total,
  bytesProcessed: row.bytes_processed,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
  finishedAt: row.finished_at === null ? null : isoTime(row.finished_at),
})

export type ImportJob = ReturnType<typeof toImportJob>

export interface NewImport {
  id: string
  fileName: string | null
  /** The stored upload, relative to the data directory. */
  filePath: string
  /** Where this process stored it: it is kept in the database too, for whichever process runs the import. */
  storedAt: string
  bytesTotal: number
  /** The column mapping the upload came with, checked against its header. */
  mapping?: ColumnMapping
}

/** A PENDING import of an upload whose header has been checked. */
export async function createImport(db: Db, projectId: number, upload: NewImport, now: number): Promise<ImportJob> {
  const row = await repo.insertImport(db, {
    id: upload.id,
    project_id: projectId,
    status: 'PENDING',
    file_name: upload.fileName,
    file_path: upload.filePath,
    bytes_total: upload.bytesTotal,
    error: null,
    mapping: upload.mapping ? JSON.stringify(upload.mapping) : null,
    created_at: now,
    updated_at: now,
    finished_at: null,
  })
  await keepUpload(db, upload.id, upload.storedAt)
  // The import runner looks once this transaction committed, not at its next poll.
  rowsWait(db, 'contact_imports', projectId)
  return toImportJob(row)
}

export async function getImport(db: Db, projectId: number, id: string): Promise<ImportJob> {
  const row = await repo.findImport(db, projectId, id)
  if (!row) throw notFound('Import')
  return toImportJob(row)
}

export const listImports = async (db: Db, projectId: number, limit: number) => ({
  imports: (await repo.listImports(db, projectId, limit)).map(toImportJob),
})

/** What an import that already wrote chunks goes on from; undefined before its first chunk. */
export function progressOf(row: ImportRow): ImportProgress | undefined {
  if (row.next_line === 0) return undefined
  return {
    position: { offset: row.bytes_processed, line: row.next_line },
    bytesTotal: row.bytes_total,
    processedRows: row.processed_rows,
    createdCount: row.created_count,
    updatedCount: row.updated_count,
    failedCount: row.failed_count,
    errors: JSON.parse(row.errors),
  }
}

/** The mapping an import's upload came with, for the process that runs it. */
export const mappingOf = (row: ImportRow): ColumnMapping | undefined => (row.mapping === null ? undefined : JSON.parse(row.mapping))

/**
 * The report of an import's refused rows as CSV: `line,reason` for each kept (the first
 * MAX_ERRORS), then, when more were refused, a last row without a line saying how many more.
 */
export function refusedRowsCsv(job: ImportJob): string {
  const rows: Array<[number | string, string]> = job.errors.map((e) => [e.line, e.message])
  const unlisted = job.failedCount - job.errors.length
  if (unlisted > 0) rows.push(['', `${unlisted} more ${unlisted === 1 ? 'row was' : 'rows were'} refused after the first ${MAX_ERRORS}, which are the ones listed`])
  return stringify([['line', 'reason'], ...rows])
}
