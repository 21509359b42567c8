import type { Kysely } from 'kysely'

/**
 * Sandbox projects: their mail is simulated at the delivery step instead of going to an MX host.
 * The flag is kept on each delivery too, as it was when the mail was queued, so that switching a
 * project later never sends sandbox mail for real nor simulates real mail. A sandbox project signs
 * with its own DKIM key (sealed like a domain's), made when it becomes a sandbox.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('projects').addColumn('sandbox_dkim_private_key', 'text').execute()
  await db.schema.alterTable('projects').addColumn('sandbox_dkim_public_key', 'text').execute()
  await db.schema.alterTable('deliveries').addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0)).execute()
}
