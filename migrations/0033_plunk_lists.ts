import { sql, type Kysely } from 'kysely'

/** The columns each list may be sorted by (besides contacts by email, which the unique address key orders). */
const SORTED = {
  contacts: ['created_at'],
  templates: ['created_at', 'updated_at', 'name'],
  campaigns: ['created_at', 'updated_at', 'name'],
} as const

/**
 * Plunk's template type, and an index for every sort the lists offer. A list is read one project at
 * a time in one order with the id breaking ties, so each index is (project_id, column, id): a page
 * is a range of it, never a sort of the project's rows. The routes offer no sort without one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('templates')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('MARKETING').check(sql`type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')`))
    .execute()
  for (const [table, columns] of Object.entries(SORTED)) {
    for (const column of columns) {
      await db.schema.createIndex(`${table}_project_${column}`).on(table).columns(['project_id', column, 'id']).execute()
    }
  }
}
