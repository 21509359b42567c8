import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Rate limits shared by every process on the database: the requests per minute of each budget,
 * the login throttle's failures and each project's send rate. One row per limit and key, its
 * state a short text that src/cluster/rate-limits.repository.ts (the owner) reads and replaces by
 * compare-and-set on `version`. `expires_at` is when the row holds nothing that still counts, so
 * that old rows can be deleted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  await db.schema
    .createTable('rate_limits')
    .addColumn('budget', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('version', integer, (c) => c.notNull())
    .addColumn('expires_at', integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pkey', ['budget', 'key'])
    .modifyEnd(sqlite ? sql`STRICT, WITHOUT ROWID` : sql``)
    .execute()
  await db.schema.createIndex('rate_limits_expires_at').on('rate_limits').column('expires_at').execute()
}
