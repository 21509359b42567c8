import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Double opt-in of contact books (src/core/segments owns it): a contact added to a book that asks
 * for confirmation waits here, not in segment_members, until it follows the link of the email it
 * was sent. Following it fills the consent: when, how, from which client, and what was agreed to.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  const integer = sqlite ? 'integer' : 'bigint'
  await db.schema
    .createTable('book_opt_ins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', integer, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('email_id', 'text') // the confirmation email
    .addColumn('requested_at', integer, (c) => c.notNull())
    .addColumn('confirmed_at', integer)
    .addColumn('method', 'text') // 'confirmation' once confirmed
    .addColumn('client_ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('agreed_to', 'text') // JSON: {book, subject}
    .modifyEnd(sqlite ? sql`STRICT` : sql``)
    .execute()
  await db.schema.createIndex('book_opt_ins_member').on('book_opt_ins').columns(['segment_id', 'contact_id']).execute()
  await db.schema.createIndex('book_opt_ins_contact').on('book_opt_ins').column('contact_id').execute()
}
