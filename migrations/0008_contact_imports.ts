import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // A contacts CSV being imported in the background. Progress moves in the transaction that
  // imports each chunk, so a restart goes on from the last committed chunk.
  await db.schema
    .createTable('contact_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED')`))
    .addColumn('file_name', 'text') // as uploaded, for people
    .addColumn('file_path', 'text', (c) => c.notNull()) // the stored upload, relative to the data directory
    .addColumn('bytes_total', 'integer', (c) => c.notNull())
    // Where the next chunk starts: byte offset, and the physical line there.
    .addColumn('bytes_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_line', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('processed_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]')) // JSON: the first failed rows, {line, message}
    .addColumn('error', 'text') // why the whole import failed
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .addColumn('finished_at', 'integer')
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('contact_imports_project').on('contact_imports').columns(['project_id', 'id']).execute()
  await sql`CREATE INDEX contact_imports_waiting ON contact_imports (status, id) WHERE status IN ('PENDING', 'RUNNING')`.execute(db)
}
