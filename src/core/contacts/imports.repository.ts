import type { Insertable, Selectable } from 'kysely'
import { claim, UNCLAIMED, type Claimant } from '../../db/claims.ts'
import type { ContactImportTable, Db } from '../../db/schema.ts'
import type { ImportProgress } from './import-file.ts'

export type ImportRow = Selectable<ContactImportTable>

export const insertImport = (db: Db, row: Insertable<ContactImportTable>) =>
  db.insertInto('contact_imports').values(row).returningAll().executeTakeFirstOrThrow()

export const findImport = (db: Db, projectId: number, id: string) =>
  db.selectFrom('contact_imports').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

/** Newest first. */
export const listImports = (db: Db, projectId: number, limit: number) =>
  db.selectFrom('contact_imports').selectAll().where('project_id', '=', projectId).orderBy('id', 'desc').limit(limit).execute()

/** Claims the oldest waiting import (src/db/claims.ts) and marks it RUNNING. */
export const claimImport = (db: Db, claimant: Claimant, now: number) =>
  claim(db, 'contact_imports', claimant, now, {
    picked: db.selectFrom('contact_imports').select('id').where('status', '=', 'PENDING').where('claimed_by', 'is', null).orderBy('id').limit(1),
    still: (eb) => eb('status', '=', 'PENDING'),
    set: { status: 'RUNNING', updated_at: now },
  })
    .returningAll()
    .executeTakeFirst()

export const saveProgress = (db: Db, id: string, progress: ImportProgress, now: number) =>
  db
    .updateTable('contact_imports')
    .set({
      bytes_processed: progress.position.offset,
      next_line: progress.position.line,
      processed_rows: progress.processedRows,
      created_count: progress.createdCount,
      updated_count: progress.updatedCount,
      failed_count: progress.failedCount,
      errors: JSON.stringify(progress.errors),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute()

export const finishImport = (db: Db, id: string, status: 'COMPLETED' | 'FAILED', error: string | null, now: number) =>
  db.updateTable('contact_imports').set({ status, error, updated_at: now, finished_at: now, ...UNCLAIMED }).where('id', '=', id).execute()

/** The ids of imports still to run: their uploads are kept, any other file is a leftover. */
export const waitingImportIds = async (db: Db) =>
  (await db.selectFrom('contact_imports').select('id').where('status', 'in', ['PENDING', 'RUNNING']).execute()).map((r) => r.id)
