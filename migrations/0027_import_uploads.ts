import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * A contact import's upload, kept in the database in parts until its import ends, so that any
 * process sharing the database can run the import: the one that received the upload may be on
 * another machine, or gone. src/core/contacts/import-uploads.repository.ts owns it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  await db.schema
    .createTable('contact_import_parts')
    .addColumn('import_id', 'text', (c) => c.notNull().references('contact_imports.id').onDelete('cascade'))
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('bytes', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_import_parts_pk', ['import_id', 'part'])
    .modifyEnd(sqlite ? sql`STRICT` : sql``)
    .execute()
}
