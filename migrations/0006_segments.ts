import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('segments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type IN ('DYNAMIC', 'STATIC')`))
    .addColumn('condition', 'text') // JSON; DYNAMIC segments only
    .addColumn('track_membership', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('meta', 'text') // JSON: what a contact book adds (emoji, properties)
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .modifyEnd(sql`STRICT`)
    .execute()
  await db.schema.createIndex('segments_project').on('segments').columns(['project_id', 'id']).execute()
  // Every tracked event and contact change asks for its project's tracked segments.
  await db.schema.createIndex('segments_tracked').on('segments').column('project_id').where(sql.ref('track_membership'), '=', 1).execute()

  // STATIC segments (and contact books): their members, listed.
  await db.schema
    .createTable('segment_members')
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('segment_members_pk', ['segment_id', 'contact_id'])
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
  await db.schema.createIndex('segment_members_contact').on('segment_members').column('contact_id').execute()

  // Tracked segments (DYNAMIC or STATIC): who was a member at the last evaluation, to tell entries
  // from exits.
  await db.schema
    .createTable('segment_memberships')
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('entered_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('segment_memberships_pk', ['segment_id', 'contact_id'])
    .modifyEnd(sql`STRICT, WITHOUT ROWID`)
    .execute()
  await db.schema.createIndex('segment_memberships_contact').on('segment_memberships').column('contact_id').execute()

  // A contact's mail activity (email.<status> conditions) is reached through its emails.
  await db.schema.createIndex('emails_contact').on('emails').column('contact_id').execute()
}
