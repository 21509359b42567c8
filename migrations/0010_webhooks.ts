import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull()) // JSON: the event types it receives; ["*"] for all
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text') // set when the dispatcher disabled it
    // Sealed: signs its calls; shown once, at creation or rotation.
    .addColumn('signing_secret', 'text', (c) => c.notNull())
    // Sealed: the secret before the last rotation, which signs too until previous_secret_until.
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'integer')
    // Failed calls since the last success: too many and the webhook is disabled.
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('webhooks_project').on('webhooks').columns(['project_id', 'id']).execute()

  // One row per event per webhook: the call made until it succeeds or its retries run out.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull()) // x-mailstead-id: the same for every webhook and every attempt
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull()) // the body, exactly as signed
    // paused: waits while its webhook is disabled; pending again when it is enabled.
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('pending', 'paused', 'delivered', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // While a call is under way, the end of its lease: a crash leaves it due again then.
    .addColumn('next_attempt_at', 'integer')
    .addColumn('last_attempt_at', 'integer')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at) WHERE state = 'pending'`.execute(db)
  await sql`CREATE INDEX webhook_deliveries_paused ON webhook_deliveries (webhook_id) WHERE state = 'paused'`.execute(db)
  await db.schema.createIndex('webhook_deliveries_list').on('webhook_deliveries').columns(['webhook_id', 'id']).execute()
  // Finished deliveries by age, for pruning.
  await sql`CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE state IN ('delivered', 'failed')`.execute(db)
}
