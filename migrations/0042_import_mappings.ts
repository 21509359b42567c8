import type { Kysely } from 'kysely'

/**
 * A contact import keeps the column mapping its upload came with (JSON of column name to email,
 * subscribed, ignore or data.<key>), for whichever process runs it; null reads the header as named.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('contact_imports').addColumn('mapping', 'text').execute()
}
