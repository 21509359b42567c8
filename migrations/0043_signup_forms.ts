import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Hosted sign-up forms (src/core/segments owns them): each lists the people who send it in one
 * contact book or static segment, asking for the fields it names. Its page is served at /f/<id>;
 * a snippet of HTML posts to the same address from any site.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  await db.schema
    .createTable('signup_forms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', integer, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull()) // JSON: [{key, label, required}]
    .addColumn('page', 'text', (c) => c.notNull()) // JSON: {title, description, button, success, redirectUrl}
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', integer, (c) => c.notNull())
    .addColumn('updated_at', integer, (c) => c.notNull())
    .modifyEnd(sqlite ? sql`STRICT` : sql``)
    .execute()
  await db.schema.createIndex('signup_forms_project').on('signup_forms').columns(['project_id', 'created_at']).execute()
  await db.schema.createIndex('signup_forms_segment').on('signup_forms').column('segment_id').execute()
}
