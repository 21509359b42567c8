import { sql, type Kysely } from 'kysely'
import { AUTOMATION_TABLES } from './baseline/automation.ts'
import { CORE_TABLES } from './baseline/core.ts'
import { DELIVERY_TABLES } from './baseline/delivery.ts'

/*
 * The schema of SQLite's migrations 0001 to 0018, as one migration for PostgreSQL, which came
 * after them. Later migrations are listed for both dialects, with a body per dialect where the
 * SQL must differ.
 *
 * Types: every integer is bigint (epoch milliseconds, ids, counters and 0/1 flags alike; the
 * driver reads int8 as a number); SQLite's blobs are bytea; contacts.data, SQLite's binary JSON,
 * is jsonb. Other JSON columns stay text: they are written and read whole.
 */
const STATEMENTS = [...CORE_TABLES, ...AUTOMATION_TABLES, ...DELIVERY_TABLES]

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}
