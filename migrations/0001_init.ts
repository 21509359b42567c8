import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type IN ('secret', 'public')`))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', 'integer')
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('api_keys_prefix').on('api_keys').column('prefix').execute()
  await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute()

  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('subscribed', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('contacts_project_email', ['project_id', 'email_key'])
    .modifyEnd(sql`STRICT`)
    .execute()
  // Keyset pagination walks (project, id); the subscribed filter has its own path.
  await db.schema.createIndex('contacts_project_id').on('contacts').columns(['project_id', 'id']).execute()
  await db.schema
    .createIndex('contacts_project_subscribed')
    .on('contacts')
    .columns(['project_id', 'subscribed', 'id'])
    .execute()

  await db.schema
    .createTable('events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('events_project_name_time').on('events').columns(['project_id', 'name', 'created_at']).execute()
  await db.schema.createIndex('events_contact_time').on('events').columns(['contact_id', 'created_at']).execute()
}
