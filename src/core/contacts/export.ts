import { sql } from 'kysely'
import { stringify } from 'csv-stringify/sync'
import { jsonEntries, jsonText } from '../../db/json.ts'
import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { findProject } from '../projects/index.ts'
import { cellText, exportHeader } from './csv-columns.ts'
import { filteredContacts, type ContactFilter } from './contacts.repository.ts'

const PAGE = 5000

export interface ExportSummary {
  contacts: number
  columns: string[]
}

/**
 * Writes a project's contacts (those `match` selects, every one without it) as CSV, a page at a
 * time by keyset on id, so that no more than a page is in memory: email, subscribed, createdAt,
 * updatedAt, then a column per data key any of them has. It reads one snapshot of the database,
 * so every contact's keys are in the header: for the CLI, whose process has a connection of its
 * own. Importing the file gives back the same contacts.
 */
export async function exportContactsCsv(db: Db, projectId: number, write: (csv: string) => Promise<void>, match: ContactFilter = {}): Promise<ExportSummary> {
  if (!(await findProject(db, projectId))) throw notFound(`Project ${projectId}`)
  // One snapshot for the header and every page: PostgreSQL's default gives each statement its own.
  return db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const { columns, chunks } = await contactsCsv(trx, projectId, match)
    let count = 0
    for await (const chunk of chunks) {
      await write(chunk.csv)
      count += chunk.rows
    }
    return { contacts: count, columns }
  })
}

/**
 * The same CSV as chunks to stream, each page its own statement: a server's export holds no
 * transaction (on SQLite that would hold its one connection, and every request, for the whole
 * export). The header is the keys the selected contacts have when it starts; a key first written
 * while the export runs is left out. The chunks are the header row, then a page each.
 */
export async function contactsCsv(db: Db, projectId: number, match: ContactFilter = {}): Promise<{ columns: string[]; chunks: AsyncGenerator<CsvChunk> }> {
  const filter = { ...match, search: match.search?.toLowerCase() }
  const keys = await dataKeys(db, projectId, filter)
  const columns = exportHeader(keys)
  return { columns, chunks: csvChunks(db, projectId, filter, columns, keys) }
}

export interface CsvChunk {
  csv: string
  /** The contacts it holds; 0 for the header row. */
  rows: number
}

async function* csvChunks(db: Db, projectId: number, filter: ContactFilter, columns: string[], keys: string[]): AsyncGenerator<CsvChunk> {
  yield { csv: stringify([columns]), rows: 0 }
  let after = ''
  for (;;) {
    const page = await pageAfter(db, projectId, filter, after)
    if (page.length === 0) return
    yield { csv: stringify(page.map((row) => csvRow(row, keys))), rows: page.length }
    after = page.at(-1)!.id
  }
}

type ExportRow = Awaited<ReturnType<typeof pageAfter>>[number]

function csvRow(row: ExportRow, keys: string[]): string[] {
  const data = JSON.parse(row.data) as Record<string, unknown>
  return [row.email, row.subscribed === 1 ? 'true' : 'false', isoTime(row.created_at), isoTime(row.updated_at), ...keys.map((key) => cellText(data[key]))]
}

const pageAfter = (db: Db, projectId: number, filter: ContactFilter, after: string) =>
  filteredContacts(db, projectId, filter)
    .select(['c.id', 'c.email', 'c.subscribed', jsonText('c.data').as('data'), 'c.created_at', 'c.updated_at'])
    .where('c.id', '>', after)
    .orderBy('c.id')
    .limit(PAGE)
    .execute()

/** Every top-level key of the project's contacts' data, in the order of their UTF-8 bytes, whatever the database's collation. */
async function dataKeys(db: Db, projectId: number, filter: ContactFilter): Promise<string[]> {
  const selected = filteredContacts(db, projectId, filter).select('c.data')
  const result = await sql<{ key: string }>`SELECT DISTINCT j.key AS key FROM (${selected}) AS c, ${jsonEntries(db, 'c.data')} AS j`.execute(db)
  return result.rows.map((r) => r.key).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}
