import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Which projects a received bounce or complaint report was about: the projects of the deliveries
 * its verdicts name (src/core/inbound owns it, written with the report). A project's API lists its
 * own reports through it, never another project's. Reports already kept are linked here from
 * their verdicts, where the deliveries they name are still there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  await db.schema
    .createTable('received_report_projects')
    .addColumn('project_id', integer, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('report_id', integer, (c) => c.notNull().references('received_reports.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('received_report_projects_pk', ['project_id', 'report_id'])
    .modifyEnd(sqlite ? sql`STRICT, WITHOUT ROWID` : sql``)
    .execute()
  await db.schema.createIndex('received_report_projects_report').on('received_report_projects').column('report_id').execute()
  if (sqlite) {
    await sql`INSERT OR IGNORE INTO received_report_projects (project_id, report_id)
      SELECT DISTINCT d.project_id, r.id FROM received_reports r, json_each(r.verdicts) v
      JOIN deliveries d ON d.id = json_extract(v.value, '$.deliveryId')`.execute(db)
  } else {
    await sql`INSERT INTO received_report_projects (project_id, report_id)
      SELECT DISTINCT d.project_id, r.id FROM received_reports r
      CROSS JOIN LATERAL jsonb_array_elements(r.verdicts::jsonb) v
      JOIN deliveries d ON d.id = (v->>'deliveryId')::bigint
      ON CONFLICT DO NOTHING`.execute(db)
  }
}
