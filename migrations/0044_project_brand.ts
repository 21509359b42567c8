import type { Kysely } from 'kysely'

/**
 * A project's colour (#rrggbb): the pages its recipients open (preferences, unsubscribe, sign-up
 * forms, double opt-in's confirmation) show it with the project's name. Null: a neutral dark grey.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('brand_color', 'text').execute()
}
