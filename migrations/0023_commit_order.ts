import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Readers of events and email events (the workflow scanner, membership tracking) go by a cursor
 * and must never pass over a row that commits after they read past its id. SQLite commits one
 * writer at a time, in id order, so there the id is the order. On PostgreSQL a transaction that
 * took id 10 may commit after one that took id 11: there each row also records its transaction's
 * id (xid8, one per transaction, growing), readers read in (transaction, id) order and only rows
 * of transactions older than every one still running (src/db/event-cursors.ts). The workflow
 * cursors keep that transaction id beside the row id (`last_order`, '0' on SQLite).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE workflow_cursors ADD COLUMN last_order TEXT NOT NULL DEFAULT '0'`.execute(db)
  if (dialectOf(db) !== 'postgres') return
  for (const table of ['events', 'email_events']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN commit_order xid8 NOT NULL DEFAULT pg_current_xact_id()`.execute(db)
    await sql`CREATE INDEX ${sql.ref(`${table}_commit_order`)} ON ${sql.table(table)} (commit_order, id)`.execute(db)
  }
}
