import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // Every bounce and complaint the MX listener took, with what became of it: the operator reads
  // here why a report changed nothing (it did not prove who it is about), and what one changed.
  await db.schema
    .createTable('received_reports')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('received_at', 'integer', (c) => c.notNull())
    .addColumn('remote_address', 'text')
    .addColumn('mail_from', 'text', (c) => c.notNull()) // the envelope sender, '' for <>
    .addColumn('rcpt_to', 'text', (c) => c.notNull()) // JSON: the addresses it arrived at
    .addColumn('kind', 'text', (c) => c.notNull()) // dsn, arf, plain-bounce, other
    .addColumn('subject', 'text')
    .addColumn('message_id', 'text') // the report's own
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome IN ('applied', 'duplicate', 'ignored', 'untrusted')`))
    .addColumn('reason', 'text') // why it was not applied, in words
    .addColumn('verdicts', 'text', (c) => c.notNull()) // JSON: what was decided for each delivery it named
    .addColumn('raw', 'blob', (c) => c.notNull()) // the message's first bytes
    .addColumn('raw_size', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('received_reports_outcome').on('received_reports').columns(['outcome', 'id']).execute()
}
