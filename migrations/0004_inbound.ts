import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // Reports already applied: a report received twice changes nothing the second time.
  await db.schema
    .createTable('inbound_reports')
    .addColumn('fingerprint', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
}
