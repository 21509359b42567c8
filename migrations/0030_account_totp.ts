import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * An account's TOTP second factor (src/core/accounts owns it). The secret is sealed with a key
 * derived from the server secret. Until `confirmed_at` it is only being enrolled and sign-in does
 * not ask for it; `last_counter` is the time step of the last code accepted, so no code is
 * accepted twice.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  await db.schema
    .createTable('account_totp')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', integer)
    .addColumn('last_counter', integer)
    .addColumn('created_at', integer, (c) => c.notNull())
    .modifyEnd(sqlite ? sql`STRICT` : sql``)
    .execute()
}
