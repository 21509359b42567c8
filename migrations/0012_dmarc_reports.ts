import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // One row per DMARC aggregate report received for a domain: a report sent again (same reporter,
  // same report id) is the same row, so it counts once.
  await db.schema
    .createTable('dmarc_reports')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('org_name', 'text', (c) => c.notNull()) // as the report gives it
    .addColumn('org_key', 'text', (c) => c.notNull()) // lower case: what a repeat is recognised by, with report_id
    .addColumn('report_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('begin_at', 'integer', (c) => c.notNull())
    .addColumn('end_at', 'integer', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull()) // YYYY-MM-DD (UTC) its rows count on
    .addColumn('policy', 'text', (c) => c.notNull()) // JSON: the policy_published the reporter found
    .addColumn('messages', 'integer', (c) => c.notNull())
    .addColumn('records', 'integer', (c) => c.notNull())
    .addColumn('received_at', 'integer', (c) => c.notNull())
    .addUniqueConstraint('dmarc_reports_once', ['domain_id', 'org_key', 'report_id'])
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('dmarc_reports_day').on('dmarc_reports').columns(['domain_id', 'day']).execute()

  // Per domain, per day and per source IP: what the receiver saw of mail from that address.
  await db.schema
    .createTable('dmarc_rows')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('dmarc_report_id', 'integer', (c) => c.notNull().references('dmarc_reports.id').onDelete('cascade'))
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('source_ip', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('disposition', 'text', (c) => c.notNull()) // none, quarantine, reject
    // policy_evaluated: DKIM and SPF passed aligned with the From domain (0/1).
    .addColumn('dkim_aligned', 'integer', (c) => c.notNull())
    .addColumn('spf_aligned', 'integer', (c) => c.notNull())
    // auth_results before alignment: pass, fail, softfail, none...
    .addColumn('dkim_result', 'text', (c) => c.notNull())
    .addColumn('spf_result', 'text', (c) => c.notNull())
    .addColumn('header_from', 'text', (c) => c.notNull())
    .addColumn('envelope_from', 'text')
    .addColumn('auth', 'text', (c) => c.notNull()) // JSON: each DKIM and SPF result with its domain
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('dmarc_rows_day').on('dmarc_rows').columns(['domain_id', 'day', 'source_ip']).execute()
  await db.schema.createIndex('dmarc_rows_report').on('dmarc_rows').column('dmarc_report_id').execute()
}
