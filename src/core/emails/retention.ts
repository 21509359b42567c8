import { sql, type SqlBool } from 'kysely'
import type { Db } from '../../db/schema.ts'
import { hasPendingDelivery } from '../queue/index.ts'

/** Content rows one read looks at: a bounded statement, so the event loop never waits long. */
const SCAN_WINDOW = 5000
/**
 * Bodies deleted in one write, by count and by size: a short hold of the write lock for the writes
 * queued behind it. Freeing a body reads each of its overflow pages, so large messages count.
 */
const DELETE_CHUNK = 2000
const DELETE_CHUNK_BYTES = 64 * 1024 * 1024

export const DAY_MS = 86_400_000

export interface PruneResult {
  /** Emails whose bodies were (or, in a dry run, would be) deleted. */
  emails: number
  /** Bytes of HTML, text and built message in those bodies. */
  bytes: number
}

export interface PruneOptions {
  /** Runs a write: the server's group-commit writer, or one transaction per call in the CLI. */
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  /** Counts what would go, deleting nothing. */
  dryRun?: boolean
  /** Asked between chunks: true stops the pass (the server is stopping). */
  stopping?: () => boolean
}

/**
 * An email created before `cutoff` none of whose deliveries waits: its body has done its work. A
 * pending delivery (the queue's PENDING_STATES) still needs its email's message.
 */
const prunable = (cutoff: number) =>
  sql<SqlBool>`(SELECT e.created_at FROM emails e WHERE e.id = c.email_id) < ${cutoff}
    AND NOT ${hasPendingDelivery('c.email_id')}`

/**
 * Bytes of a body's columns, under `table` (RETURNING names the deleted row's columns bare): the
 * text columns' UTF-8 bytes, not their characters (`octet_length` says so on both databases).
 */
const bytesOf = (table?: string) => {
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name)
  return sql<number>`length(${column('mime')}) + coalesce(octet_length(${column('html')}), 0) + coalesce(octet_length(${column('text')}), 0)`
}

/**
 * Deletes the bodies (`email_contents`) of emails created before `cutoff` whose deliveries are
 * all settled; the emails, their deliveries and events stay, and the API answers their html and
 * text as null. Content rows are read in windows by id, outside any transaction; each chunk is
 * then deleted in a write that checks the rule again, so a delivery queued again meanwhile keeps
 * its body.
 */
export async function pruneBodies(db: Db, cutoff: number, options: PruneOptions): Promise<PruneResult> {
  const total: PruneResult = { emails: 0, bytes: 0 }
  let after = ''
  while (!options.stopping?.()) {
    const window = await db
      .selectFrom('email_contents as c')
      .select('c.email_id as id')
      .select(sql<number | null>`CASE WHEN ${prunable(cutoff)} THEN ${bytesOf('c')} END`.as('bytes'))
      .where('c.email_id', '>', after)
      .orderBy('c.email_id')
      .limit(SCAN_WINDOW)
      .execute()
    for (const chunk of chunksOf(window.filter((row) => row.bytes !== null))) {
      if (options.stopping?.()) break
      const done = options.dryRun ? countOf(chunk) : await options.write((trx) => deleteBodies(trx, cutoff, chunk.map((row) => row.id)))
      total.emails += done.emails
      total.bytes += done.bytes
    }
    if (window.length < SCAN_WINDOW) break
    after = window.at(-1)!.id
    // Between windows the event loop turns: requests are answered while a long pass runs.
    await new Promise((resolve) => setImmediate(resolve))
  }
  return total
}

/** Consecutive runs of at most DELETE_CHUNK rows and DELETE_CHUNK_BYTES (or one larger row). */
function* chunksOf<T extends { bytes: number | null }>(rows: T[]): Generator<T[]> {
  let chunk: T[] = []
  let bytes = 0
  for (const row of rows) {
    if (chunk.length > 0 && (chunk.length === DELETE_CHUNK || bytes + Number(row.bytes) > DELETE_CHUNK_BYTES)) {
      yield chunk
      chunk = []
      bytes = 0
    }
    chunk.push(row)
    bytes += Number(row.bytes)
  }
  if (chunk.length > 0) yield chunk
}

const countOf = (rows: ReadonlyArray<{ bytes: number | null }>): PruneResult => ({
  emails: rows.length,
  bytes: rows.reduce((sum, row) => sum + Number(row.bytes), 0),
})

async function deleteBodies(trx: Db, cutoff: number, ids: string[]): Promise<PruneResult> {
  const deleted = await trx
    .deleteFrom('email_contents as c')
    .where('c.email_id', 'in', ids)
    .where(prunable(cutoff))
    .returning(bytesOf().as('bytes'))
    .execute()
  return countOf(deleted)
}

/** Where the bodies kept start: emails created before it lose theirs once settled. */
export const retentionCutoff = (now: number, retentionDays: number) => now - retentionDays * DAY_MS
