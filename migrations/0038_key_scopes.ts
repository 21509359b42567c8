import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * API keys get a name, a scope (`full`, `sending`, `read`), an optional expiry and the time they
 * were last used (written at most once a minute per key and process). Keys made before are
 * named after their type and keep full access. Accounts get `instance_owner`: the server's
 * operator, who sees every project; the first account made is it.
 *
 * On PostgreSQL, the change signal of `api_keys` (0019) moves no more for a write of
 * `last_used_at` alone: that write comes every minute for every key in use and changes nothing
 * that processes keep in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres'
  const integer = postgres ? 'bigint' : 'integer'
  await db.schema.alterTable('api_keys').addColumn('name', 'text', (c) => c.notNull().defaultTo('')).execute()
  await db.schema
    .alterTable('api_keys')
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo('full').check(sql`scope IN ('full', 'sending', 'read')`))
    .execute()
  await db.schema.alterTable('api_keys').addColumn('expires_at', integer).execute()
  await db.schema.alterTable('api_keys').addColumn('last_used_at', integer).execute()
  await sql`UPDATE api_keys SET name = CASE type WHEN 'public' THEN 'Public key' ELSE 'Secret key' END`.execute(db)

  await db.schema.alterTable('accounts').addColumn('instance_owner', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await sql`UPDATE accounts SET instance_owner = 1
    WHERE id = (SELECT id FROM accounts ORDER BY created_at, id LIMIT 1)`.execute(db)

  if (postgres) {
    await sql`DROP TRIGGER api_keys_change_signal ON api_keys`.execute(db)
    await sql`CREATE TRIGGER api_keys_change_signal
      AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF project_id, type, prefix, hash, revoked_at, name, scope, expires_at ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION move_change_signal()`.execute(db)
  }
}
