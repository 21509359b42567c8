import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/** The counters of sending_counters (0014, 0028), in its order. */
const COUNTERS = ['sent', 'delivered', 'deferred', 'bounced', 'reported_bounced', 'hard_bounced', 'complained', 'opened', 'clicked'] as const

/**
 * A sandbox project's mail has no sending domain (domain_id NULL), so sending_counters, keyed by
 * a domain that must exist, never counted it and its Overview stayed empty. It gets a table of its
 * own, one row per project and hour with the same counters, rather than a domain key that may be
 * a sandbox's: sending_counters keeps its foreign key (a domain's deletion still removes its rows)
 * and its rows as they are, and the guardrails, which read only sending_counters, stay blind to
 * simulated bounces and complaints by construction. Analytics sums both tables for a project.
 * It is filled from the sandbox mail's events already recorded (since 0034), as 0028 filled its
 * new counters.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  let table = db.schema
    .createTable('sandbox_counters')
    .addColumn('project_id', integer, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('hour', integer, (c) => c.notNull()) // hours since the epoch, UTC
  for (const column of COUNTERS) table = table.addColumn(column, integer, (c) => c.notNull().defaultTo(0))
  table = table.addPrimaryKeyConstraint('sandbox_counters_pk', ['project_id', 'hour'])
  await (sqlite ? table.modifyEnd(sql`STRICT, WITHOUT ROWID`) : table).execute()
  // Pruning by age.
  await db.schema.createIndex('sandbox_counters_hour').on('sandbox_counters').column('hour').execute()
  await backfill(db, sqlite)
}

/** One row per sandbox project and hour of the sandbox mail's events: mail without a domain whose delivery was simulated. */
async function backfill(db: Kysely<any>, sqlite: boolean): Promise<void> {
  const attempted = sqlite ? sql`json_type(ev.data, '$.attempt') IS NOT NULL` : sql`(CAST(ev.data AS jsonb) -> 'attempt') IS NOT NULL`
  const hard = sqlite ? sql`ev.data -> '$.hard' = 'true'` : sql`(CAST(ev.data AS jsonb) -> 'hard') = 'true'::jsonb`
  const count = (condition: ReturnType<typeof sql>) => sql`count(*) FILTER (WHERE ${condition})`
  const status = (name: string) => sql`ev.status = ${sql.lit(name)}`
  await sql`
    INSERT INTO sandbox_counters (project_id, hour, sent, delivered, deferred, bounced, reported_bounced, hard_bounced, complained, opened, clicked)
    SELECT e.project_id, ev.created_at / 3600000,
      ${count(status('SENT'))}, ${count(status('DELIVERED'))}, ${count(status('DELIVERY_DELAYED'))},
      ${count(sql`${status('BOUNCED')} AND ${attempted}`)}, ${count(sql`${status('BOUNCED')} AND NOT ${attempted}`)},
      ${count(sql`${status('BOUNCED')} AND ${hard}`)}, ${count(status('COMPLAINED'))}, ${count(status('OPENED'))}, ${count(status('CLICKED'))}
    FROM email_events ev JOIN emails e ON e.id = ev.email_id
    WHERE e.domain_id IS NULL AND EXISTS (SELECT 1 FROM deliveries d WHERE d.email_id = e.id AND d.sandbox = 1)
      AND ev.status IN ('SENT', 'DELIVERED', 'DELIVERY_DELAYED', 'BOUNCED', 'COMPLAINED', 'OPENED', 'CLICKED')
    GROUP BY e.project_id, ev.created_at / 3600000
  `.execute(db)
}
