import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Leases: which process runs a singleton (the DNS checker, the membership tracker, the pruner,
 * the guardrail monitor) until when. One row per singleton; src/cluster/leases.ts owns it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', sqlite ? 'integer' : 'bigint', (c) => c.notNull())
    .modifyEnd(sqlite ? sql`STRICT, WITHOUT ROWID` : sql``)
    .execute()
}
