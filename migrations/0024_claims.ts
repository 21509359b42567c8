import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/** The tables whose rows are work that a process claims (src/db/claims.ts). */
const WORK_TABLES = ['deliveries', 'webhook_deliveries', 'workflow_executions', 'campaigns', 'contact_imports', 'domains'] as const

/**
 * One claim mechanism for every work table: the process holding a row (`claimed_by`) and until
 * when (`lease_until`), renewed while it works. A row whose lease ran out is given back by any
 * process, so nothing is released wholesale at start-up. The partial index holds only the rows
 * claimed now: a handful, however long the table.
 *
 * Rows that a stopped process left in hand under the old marks (a delivery `sending`, an import
 * `RUNNING`, a domain `is_verifying`) get an expired lease, so the first process to look gives
 * them back.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const epochMs = dialectOf(db) === 'sqlite' ? sql`INTEGER` : sql`BIGINT`
  for (const table of WORK_TABLES) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN claimed_by TEXT`.execute(db)
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN lease_until ${epochMs}`.execute(db)
    await sql`CREATE INDEX ${sql.ref(`${table}_claimed`)} ON ${sql.table(table)} (lease_until) WHERE claimed_by IS NOT NULL`.execute(db)
  }
  const stale = { claimed_by: 'a process before claims', lease_until: 0 }
  await db.updateTable('deliveries').set(stale).where('state', '=', 'sending').execute()
  await db.updateTable('contact_imports').set(stale).where('status', '=', 'RUNNING').execute()
  await db.updateTable('domains').set(stale).where('is_verifying', '=', 1).execute()
}
