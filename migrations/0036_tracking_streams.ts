import type { Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Tracking switches of a domain for its transactional mail, apart from those of its marketing
 * mail (`open_tracking`, `click_tracking`, which campaigns have always followed). Off for every
 * domain: a pixel and rewritten links cost transactional mail spam points, and a rewritten
 * password-reset link puts its token into click events.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const integer = dialectOf(db) === 'sqlite' ? 'integer' : 'bigint'
  for (const column of ['transactional_open_tracking', 'transactional_click_tracking']) {
    await db.schema.alterTable('domains').addColumn(column, integer, (c) => c.notNull().defaultTo(0)).execute()
  }
}
