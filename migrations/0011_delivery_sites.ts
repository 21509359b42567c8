import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // What the last attempt that reached a server used: its address, and the TLS session (JSON).
  await db.schema.alterTable('deliveries').addColumn('last_ip', 'text').execute()
  await db.schema.alterTable('deliveries').addColumn('last_tls', 'text').execute()
  // The claim reads the due rows' destination and project to skip those at their limits: held in
  // the index (with the state, which SQLite wants there to call it covering), they are read
  // without a visit to each row.
  await sql`DROP INDEX deliveries_waiting`.execute(db)
  await sql`CREATE INDEX deliveries_waiting ON deliveries (next_attempt_at, recipient_domain, project_id, state) WHERE state IN ('queued', 'deferred', 'scheduled')`.execute(db)

  // A destination site: a set of MX hosts (or a provider's, by their names) and its shaping state.
  await db.schema
    .createTable('delivery_sites')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text') // the rule it matched: gmail, microsoft, ...; null for any other site
    .addColumn('mx_hosts', 'text', (c) => c.notNull()) // JSON: the hosts last seen
    .addColumn('first_delivery_at', 'integer') // warm-up counts its days from here
    .addColumn('day_start', 'integer') // the UTC day day_count counts
    .addColumn('day_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_per_minute', 'integer', (c) => c.notNull().defaultTo(0)) // attempts in the minute before updated_at
    .addColumn('throttle_level', 'integer', (c) => c.notNull().defaultTo(0)) // limits halved this many times
    .addColumn('throttle_base_rate', 'integer') // the rate per minute the halving started from
    .addColumn('throttle_until', 'integer') // the quiet period's end: a level comes back then
    .addColumn('throttle_step_ms', 'integer') // how long each quiet period lasts (the matched rule's duration)
    .addColumn('throttle_reason', 'text')
    .addColumn('suspended_until', 'integer')
    .addColumn('suspension_reason', 'text')
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()

  // Which site each destination domain was last found to be: queue counts and forecasts by site.
  await db.schema
    .createTable('delivery_site_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('site', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('delivery_site_domains_site').on('delivery_site_domains').column('site').execute()

  // Whether this data directory warms up: on for a new one, off for one that has delivered before.
  await db.schema
    .createTable('server_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  const delivered = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT 1 FROM deliveries WHERE state = 'delivered' LIMIT 1)`.execute(db)
  await sql`INSERT INTO server_settings (key, value) VALUES ('warmup', ${Number(delivered.rows[0]?.n ?? 0) > 0 ? 'off' : 'on'})`.execute(db)
}
