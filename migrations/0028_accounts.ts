import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * People who sign in to the console, and their sessions (src/core/accounts owns both). A session
 * is stored by the SHA-256 of its token, never the token; its id is what lists and revocations
 * name. Emails are unique by `email_key`, the address folded as contacts fold theirs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  const strict = sqlite ? sql`STRICT` : sql``
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('disabled', integer, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', integer, (c) => c.notNull())
    .addColumn('updated_at', integer, (c) => c.notNull())
    .modifyEnd(strict)
    .execute()
  await db.schema
    .createTable('account_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', integer, (c) => c.notNull())
    .addColumn('last_seen_at', integer, (c) => c.notNull())
    .addColumn('expires_at', integer, (c) => c.notNull())
    .modifyEnd(strict)
    .execute()
  await db.schema.createIndex('account_sessions_account').on('account_sessions').column('account_id').execute()
}
