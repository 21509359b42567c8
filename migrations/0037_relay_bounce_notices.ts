import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * Where to send a bounce notice for a relayed email: its envelope sender, kept only when
 * MAILSTEAD_RELAY_BOUNCE_NOTICES was on as the relay took it. A table apart from `emails`, whose
 * insert is on every send's path: only relayed mail writes here. src/core/emails/bounce-notice.ts
 * owns it; it goes with its email.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite'
  await db.schema
    .createTable('relay_bounce_notices')
    .addColumn('email_id', 'text', (c) => c.primaryKey().references('emails.id').onDelete('cascade'))
    .addColumn('notify', 'text', (c) => c.notNull())
    .modifyEnd(sqlite ? sql`STRICT, WITHOUT ROWID` : sql``)
    .execute()
}
