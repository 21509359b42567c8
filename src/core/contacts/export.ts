import { sql } from 'kysely'
import { stringify } from 'csv-stringify/sync'
import { jsonEntries, jsonText } from '../../db/json.ts'
import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { findProject } from '../projects/index.ts'
import { cellText, exportHeader } from './csv-columns.ts'

const PAGE = 5000

export interface ExportSummary {
  contacts: number
  columns: string[]
}

/**
 * Writes a project's contacts as CSV, a page at a time by keyset on id, so that no more than a page
 * is in memory: email, subscribed, createdAt, updatedAt, then a column per data key any contact
 * has. It reads one snapshot of the database, so every contact's keys are in the header.
 * Importing the file gives back the same contacts.
 */
export async function exportContactsCsv(db: Db, projectId: number, write: (csv: string) => Promise<void>): Promise<ExportSummary> {
  if (!(await findProject(db, projectId))) throw notFound(`Project ${projectId}`)
  // One snapshot for the header and every page: PostgreSQL's default gives each statement its own.
  return db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const keys = await dataKeys(trx, projectId)
    const columns = exportHeader(keys)
    await write(stringify([columns]))
    let count = 0
    let after = ''
    for (;;) {
      const page = await pageAfter(trx, projectId, after)
      if (page.length === 0) break
      await write(stringify(page.map((row) => csvRow(row, keys))))
      count += page.length
      after = page.at(-1)!.id
    }
    return { contacts: count, columns }
  })
}

type ExportRow = Awaited<ReturnType<typeof pageAfter>>[number]

function csvRow(row: ExportRow, keys: string[]): string[] {
  const data = JSON.parse(row.data) as Record<string, unknown>
  return [row.email, row.subscribed === 1 ? 'true' : 'false', isoTime(row.created_at), isoTime(row.updated_at), ...keys.map((key) => cellText(data[key]))]
}

const pageAfter = (db: Db, projectId: number, after: string) =>
  db
    .selectFrom('contacts')
    .select(['id', 'email', 'subscribed', jsonText('data').as('data'), 'created_at', 'updated_at'])
    .where('project_id', '=', projectId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(PAGE)
    .execute()

/** Every top-level key of the project's contacts' data, in the order of their UTF-8 bytes, whatever the database's collation. */
async function dataKeys(db: Db, projectId: number): Promise<string[]> {
  const result = await sql<{ key: string }>`SELECT DISTINCT j.key AS key FROM contacts c, ${jsonEntries(db, 'c.data')} AS j
    WHERE c.project_id = ${projectId}`.execute(db)
  return result.rows.map((r) => r.key).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}
