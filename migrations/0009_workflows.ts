import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workflows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('trigger_type', 'text', (c) => c.notNull().check(sql`trigger_type IN ('EVENT', 'MANUAL', 'SCHEDULE')`))
    .addColumn('trigger_config', 'text', (c) => c.notNull()) // JSON
    .addColumn('allow_reentry', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('steps', 'text', (c) => c.notNull()) // JSON: the graph; the first step is the entry
    // Sealed: signs the requests of its WEBHOOK steps; shown once, at creation.
    .addColumn('signing_secret', 'text', (c) => c.notNull())
    // SCHEDULE: the next tick, and the tick being entered (its cursor moves with each chunk).
    .addColumn('next_tick_at', 'integer')
    .addColumn('tick_at', 'integer')
    .addColumn('tick_cursor', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('workflows_project').on('workflows').columns(['project_id', 'id']).execute()

  await db.schema
    .createTable('workflow_executions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workflow_id', 'text', (c) => c.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED')`))
    .addColumn('current_step', 'text')
    .addColumn('next_run_at', 'integer')
    // Since when the run has been on its current step: a DELAY or a wait counts from it, and an
    // event awaited (WAIT_FOR_EVENT) counts only from then on.
    .addColumn('step_since', 'integer', (c) => c.notNull())
    .addColumn('wait_event', 'text')
    .addColumn('trigger', 'text', (c) => c.notNull()) // JSON {name, data, at}: what started it
    // Moves with every step: an advance applies only to the step it was computed from.
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('finished_at', 'integer')
    .modifyEnd(sql`STRICT`)
    .execute()
  await sql`CREATE INDEX workflow_executions_due ON workflow_executions (next_run_at) WHERE state IN ('RUNNING', 'WAITING')`.execute(db)
  // Never two runs of one workflow for one contact at once.
  await sql`CREATE UNIQUE INDEX workflow_executions_live ON workflow_executions (workflow_id, contact_id) WHERE state IN ('RUNNING', 'WAITING')`.execute(db)
  await db.schema.createIndex('workflow_executions_contact').on('workflow_executions').columns(['workflow_id', 'contact_id', 'created_at']).execute()
  await db.schema.createIndex('workflow_executions_list').on('workflow_executions').columns(['workflow_id', 'id']).execute()
  await db.schema.createIndex('workflow_executions_by_contact').on('workflow_executions').column('contact_id').execute()
  await sql`CREATE INDEX workflow_executions_waiting ON workflow_executions (contact_id, wait_event) WHERE state = 'WAITING' AND wait_event IS NOT NULL`.execute(db)

  // What each run did: a row per step, with its outcome.
  await db.schema
    .createTable('workflow_execution_steps')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('execution_id', 'text', (c) => c.notNull().references('workflow_executions.id').onDelete('cascade'))
    .addColumn('step_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text') // JSON: the email sent, the response, the error
    .addColumn('at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('workflow_execution_steps_execution').on('workflow_execution_steps').columns(['execution_id', 'id']).execute()

  // How far the trigger scanner has read each source of events.
  await db.schema
    .createTable('workflow_cursors')
    .addColumn('source', 'text', (c) => c.primaryKey())
    .addColumn('last_id', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
  // From now on: what happened before workflows existed starts none.
  await sql`INSERT INTO workflow_cursors SELECT 'events', coalesce(max(id), 0) FROM events`.execute(db)
  await sql`INSERT INTO workflow_cursors SELECT 'email_events', coalesce(max(id), 0) FROM email_events`.execute(db)
}
