import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // What the sending guardrails count: one row per project, sending domain and hour, moved in the
  // transaction that records each outcome. A window's rates are the sum of its hours' rows, so
  // judging them reads at most one row an hour, never the email events.
  await db.schema
    .createTable('sending_counters')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('hour', 'integer', (c) => c.notNull()) // hours since the epoch, UTC
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    // Bounced at an attempt, hard or soft: with delivered, what was sent.
    .addColumn('bounced', 'integer', (c) => c.notNull().defaultTo(0))
    // Hard bounces, at an attempt or reported afterwards (a DSN).
    .addColumn('hard_bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('complained', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('sending_counters_pk', ['project_id', 'domain_id', 'hour'])
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
  // The monitor's look at every pair in the window, pruning, and a domain's deletion.
  await db.schema.createIndex('sending_counters_hour').on('sending_counters').column('hour').execute()
  await db.schema.createIndex('sending_counters_domain').on('sending_counters').column('domain_id').execute()
}
