import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('default_sender', 'text').execute()
  await db.schema.alterTable('projects').addColumn('send_rate_per_second', 'integer').execute()

  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('templates_project').on('templates').columns(['project_id', 'id']).execute()

  await db.schema
    .createTable('emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('domain_id', 'integer', (c) => c.references('domains.id').onDelete('set null'))
    .addColumn('contact_id', 'text', (c) => c.references('contacts.id').onDelete('set null'))
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('recipients', 'text', (c) => c.notNull()) // JSON {to, cc, bcc, replyTo}
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('dkim_header', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('emails_project_id').on('emails').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('emails_message_id').on('emails').column('message_id').execute()

  // The large parts, apart: SQLite rewrites a whole row on every update, and an email's status
  // changes several times while its content never does.
  await db.schema
    .createTable('email_contents')
    .addColumn('email_id', 'text', (c) => c.primaryKey().references('emails.id').onDelete('cascade'))
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('mime', 'blob', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('email_id', 'text', (c) => c.notNull().references('emails.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('recipient_domain', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('last_mx', 'text')
    .addColumn('last_response', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  // The delivery loop claims the oldest waiting rows by this index, which holds only those.
  await sql`CREATE INDEX deliveries_waiting ON deliveries (next_attempt_at) WHERE state IN ('queued', 'deferred', 'scheduled')`.execute(db)
  await db.schema.createIndex('deliveries_email').on('deliveries').column('email_id').execute()

  await db.schema
    .createTable('email_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('email_id', 'text', (c) => c.notNull().references('emails.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('email_events_email').on('email_events').columns(['email_id', 'created_at']).execute()

  await db.schema
    .createTable('suppressions')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('suppressions_project_email', ['project_id', 'email_key'])
    .modifyEnd(sql`STRICT`)
    .execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['project_id', 'key'])
    .modifyEnd(sql`STRICT`)
    .execute()
}
