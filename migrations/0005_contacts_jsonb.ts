import { sql, type Kysely } from 'kysely'

/**
 * Contact data as SQLite's binary JSON (JSONB): segment conditions read several keys of every
 * contact, and JSONB is read in place where JSON text is parsed again for each row. SQLite cannot
 * change a column's type, so the table is rebuilt (with foreign keys off, see the migrator).
 */
export const rebuildsTables = true

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('contacts_jsonb')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('subscribed', 'integer', (c) => c.notNull())
    .addColumn('data', 'blob', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('contacts_project_email', ['project_id', 'email_key'])
    .modifyEnd(sql`STRICT`)
    .execute()
  await sql`INSERT INTO contacts_jsonb SELECT id, project_id, email, email_key, subscribed, jsonb(data), created_at, updated_at FROM contacts`.execute(db)
  await db.schema.dropTable('contacts').execute()
  await db.schema.alterTable('contacts_jsonb').renameTo('contacts').execute()
  await db.schema.createIndex('contacts_project_id').on('contacts').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('contacts_project_subscribed').on('contacts').columns(['project_id', 'subscribed', 'id']).execute()
}
