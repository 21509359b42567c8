import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Who belongs to which project, with which role, and the invitations to join one
 * (src/core/accounts owns both). An invitation is used once (`accepted_at`) and expires; its link
 * carries a signed token naming its id, so nothing secret is stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  const strict = sqlite ? sql`STRICT` : sql``
  const role = sql`role IN ('owner', 'admin', 'member', 'viewer')`
  await db.schema
    .createTable('project_members')
    .addColumn('project_id', integer, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(role))
    .addColumn('created_at', integer, (c) => c.notNull())
    .addColumn('updated_at', integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('project_members_pkey', ['project_id', 'account_id'])
    .modifyEnd(strict)
    .execute()
  await db.schema.createIndex('project_members_account').on('project_members').column('account_id').execute()
  await db.schema
    .createTable('project_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', integer, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(role))
    .addColumn('invited_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', integer, (c) => c.notNull())
    .addColumn('expires_at', integer, (c) => c.notNull())
    .addColumn('accepted_at', integer)
    .addColumn('accepted_by', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .modifyEnd(strict)
    .execute()
  await db.schema.createIndex('project_invitations_project').on('project_invitations').column('project_id').execute()
}
