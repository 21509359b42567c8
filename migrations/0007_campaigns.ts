import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One table for both forms of the API (dashboard and useSend's /api/v1).
  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    .addColumn('content', 'text') // useSend's content, kept as given; the text part when there is no html
    .addColumn('preview_text', 'text')
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text')
    .addColumn('reply_to', 'text', (c) => c.notNull()) // JSON list of addresses
    .addColumn('cc', 'text', (c) => c.notNull())
    .addColumn('bcc', 'text', (c) => c.notNull())
    .addColumn('audience_type', 'text', (c) => c.notNull().check(sql`audience_type IN ('ALL', 'SEGMENT', 'FILTERED')`))
    .addColumn('segment_id', 'text', (c) => c.references('segments.id').onDelete('set null'))
    .addColumn('audience_condition', 'text') // JSON condition tree, FILTERED audiences
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED')`))
    .addColumn('scheduled_at', 'integer')
    .addColumn('started_at', 'integer')
    .addColumn('sent_at', 'integer')
    .addColumn('batch_size', 'integer', (c) => c.notNull())
    .addColumn('batch_window_minutes', 'integer', (c) => c.notNull())
    // Sending progress: the audience is read into recipients by contact id, then handed to the
    // queue in batches by contact id. Each cursor moves in the transaction that does the work.
    .addColumn('listed_through', 'text')
    .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('handed_through', 'text')
    .addColumn('batch_started_at', 'integer')
    .addColumn('batch_handed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('opened', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clicked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hard_bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('complained', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unsubscribed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('campaigns_project').on('campaigns').columns(['project_id', 'id']).execute()
  // What the campaign sender looks at on every round.
  await sql`CREATE INDEX campaigns_active ON campaigns (status) WHERE status IN ('SCHEDULED', 'SENDING')`.execute(db)

  // One row per contact a campaign goes to: the unique key that makes sending at most once.
  await db.schema
    .createTable('campaign_recipients')
    .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('listed', 'queued', 'skipped')`))
    .addColumn('email_id', 'text', (c) => c.references('emails.id').onDelete('set null'))
    // The first time each thing happened to this recipient's email: counters count contacts once.
    .addColumn('sent_at', 'integer')
    .addColumn('delivered_at', 'integer')
    .addColumn('opened_at', 'integer')
    .addColumn('clicked_at', 'integer')
    .addColumn('bounced_at', 'integer')
    .addColumn('complained_at', 'integer')
    .addColumn('unsubscribed_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_recipients_pk', ['campaign_id', 'contact_id'])
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
  await sql`CREATE INDEX campaign_recipients_email ON campaign_recipients (email_id) WHERE email_id IS NOT NULL`.execute(db)
  await db.schema.createIndex('campaign_recipients_contact').on('campaign_recipients').column('contact_id').execute()

  // Deliveries held by a paused campaign, found again when it resumes or is cancelled.
  await sql`CREATE INDEX deliveries_paused ON deliveries (email_id) WHERE state = 'paused'`.execute(db)
}
