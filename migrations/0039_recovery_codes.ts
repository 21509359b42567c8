import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * An account's recovery codes (src/core/accounts owns them): ten made when its second factor is
 * confirmed, each signing in once in place of an authenticator code. Only each code's SHA-256 is
 * kept; `used_at` marks one spent. They go with their account, and are deleted with the second
 * factor or when new ones replace them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  await db.schema
    .createTable('account_recovery_codes')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', integer)
    .addColumn('created_at', integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('account_recovery_codes_pk', ['account_id', 'code_hash'])
    .modifyEnd(sqlite ? sql`STRICT, WITHOUT ROWID` : sql``)
    .execute()
}
