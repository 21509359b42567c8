import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // The latest results of the server's own checks (name 'reputation': PTR, FCrDNS, blocklists,
  // SPF), shared by every process on the database: one runs them, all read them.
  await db.schema
    .createTable('server_checks')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('report', 'text') // JSON: { hostname, ips, findings }; null until a run finishes
    .addColumn('checked_at', 'integer') // when the report was made
    // While a run is under way, when it began: the others leave it alone until it finishes, or
    // until it is so old that its process must have died.
    .addColumn('running_since', 'integer')
    .modifyEnd(sql`STRICT`)
    .execute()
}
