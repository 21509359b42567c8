import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // MTA-STS policies (RFC 8461) of recipient domains, kept for their max_age so that a restart
  // does not forget an enforce policy: forgetting it is what a downgrade attack needs.
  await db.schema
    .createTable('mta_sts_policies')
    .addColumn('domain', 'text', (c) => c.primaryKey()) // the recipient domain, lower-case A-labels
    .addColumn('policy_id', 'text', (c) => c.notNull()) // the TXT record's id when it was fetched
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode IN ('enforce', 'testing', 'none')`))
    .addColumn('mx', 'text', (c) => c.notNull()) // JSON: the mx patterns
    .addColumn('max_age', 'integer', (c) => c.notNull()) // seconds, as the policy says
    .addColumn('fetched_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
  await db.schema.createIndex('mta_sts_policies_expiry').on('mta_sts_policies').column('expires_at').execute()
}
