import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/** The counters the analytics add to the guardrails' (0014): the email events they had no column for. */
const NEW_COUNTERS = ['sent', 'deferred', 'reported_bounced', 'opened', 'clicked'] as const

/**
 * The hourly sending counters become the one rollup of email events, read by the guardrails and
 * by analytics (src/core/analytics/counters.ts owns them): sent, deferred, opened and clicked
 * join delivered, bounced, hard_bounced and complained, and bounces reported after the attempt
 * get a column of their own (`bounced` stays the attempts', which the guardrails count as sent).
 * The new columns are filled from the email events already recorded.
 *
 * The email list's filters (a time range, sending domains) read emails by creation time: the
 * project's index gains it (replacing (project_id, id), which only the list used), and a domain's
 * emails get one (which a domain's deletion, setting their domain_id to NULL, also needs).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  for (const column of NEW_COUNTERS) {
    await db.schema
      .alterTable('sending_counters')
      .addColumn(column, sqlite ? 'integer' : 'bigint', (c) => c.notNull().defaultTo(0))
      .execute()
  }
  await backfill(db, sqlite)
  // A project's range over all its domains reads its rows in range only, not every hour kept of each domain.
  await db.schema.createIndex('sending_counters_project_hour').on('sending_counters').columns(['project_id', 'hour']).execute()
  await db.schema.dropIndex('emails_project_id').execute()
  await db.schema.createIndex('emails_project_created').on('emails').columns(['project_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('emails_domain_created').on('emails').columns(['domain_id', 'created_at', 'id']).execute()
}

/**
 * One row per project, domain and hour of the events recorded so far. An hour that has a row
 * (counted live since 0014) keeps its four columns and gains the new ones; an hour that has none
 * (older than the rows kept, or before 0014) gets every column from its events. There a bounce
 * at an attempt is one whose data says which attempt (a report's does not), and a recipient
 * reported twice counts twice, as the live counters would not.
 */
async function backfill(db: Kysely<any>, sqlite: boolean): Promise<void> {
  const attempted = sqlite ? sql`json_type(ev.data, '$.attempt') IS NOT NULL` : sql`(CAST(ev.data AS jsonb) -> 'attempt') IS NOT NULL`
  const hard = sqlite ? sql`ev.data -> '$.hard' = 'true'` : sql`(CAST(ev.data AS jsonb) -> 'hard') = 'true'::jsonb`
  const count = (condition: ReturnType<typeof sql>) => sql`count(*) FILTER (WHERE ${condition})`
  const status = (name: string) => sql`ev.status = ${sql.lit(name)}`
  await sql`
    INSERT INTO sending_counters (project_id, domain_id, hour, sent, delivered, deferred, bounced, reported_bounced, hard_bounced, complained, opened, clicked)
    SELECT e.project_id, e.domain_id, ev.created_at / 3600000,
      ${count(status('SENT'))}, ${count(status('DELIVERED'))}, ${count(status('DELIVERY_DELAYED'))},
      ${count(sql`${status('BOUNCED')} AND ${attempted}`)}, ${count(sql`${status('BOUNCED')} AND NOT ${attempted}`)},
      ${count(sql`${status('BOUNCED')} AND ${hard}`)}, ${count(status('COMPLAINED'))}, ${count(status('OPENED'))}, ${count(status('CLICKED'))}
    FROM email_events ev JOIN emails e ON e.id = ev.email_id
    WHERE e.domain_id IS NOT NULL AND ev.status IN ('SENT', 'DELIVERED', 'DELIVERY_DELAYED', 'BOUNCED', 'COMPLAINED', 'OPENED', 'CLICKED')
    GROUP BY e.project_id, e.domain_id, ev.created_at / 3600000
    ON CONFLICT (project_id, domain_id, hour) DO UPDATE SET
      sent = excluded.sent, deferred = excluded.deferred, reported_bounced = excluded.reported_bounced,
      opened = excluded.opened, clicked = excluded.clicked
  `.execute(db)
}
