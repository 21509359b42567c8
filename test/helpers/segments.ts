import { sql } from 'kysely'
import { insertMany } from '../../src/db/bulk.ts'
import { dialectOf, type Database } from '../../src/db/client.ts'
import type { Db, EmailStatus } from '../../src/db/schema.ts'
import { newId } from '../../src/lib/ids.ts'
import { openTestDatabase } from './postgres.ts'

export const NOW = Date.parse('2026-11-01T12:00:00Z')
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/** A project of a fresh database (SQLite, or PostgreSQL): what segment tests put their contacts in. */
export async function openProjectDb(): Promise<{ database: Database; db: Db; projectId: number }> {
  const database = await openTestDatabase()
  const project = await database.db
    .insertInto('projects')
    .values({ name: 'Segments', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: NOW, updated_at: NOW })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { database, db: database.db, projectId: project.id }
}

export interface ContactFixture {
  email: string
  subscribed?: boolean
  data?: Record<string, unknown>
  createdAt?: number
  updatedAt?: number
}

/** Inserts the contacts as given (times included); answers their ids in order. */
export async function insertContacts(db: Db, projectId: number, contacts: readonly ContactFixture[]): Promise<string[]> {
  const rows = contacts.map((contact) => ({
    id: newId(),
    project_id: projectId,
    email: contact.email,
    email_key: contact.email.toLowerCase(),
    subscribed: contact.subscribed === false ? 0 : 1,
    data: contact.data ?? {},
    created_at: contact.createdAt ?? NOW,
    updated_at: contact.updatedAt ?? contact.createdAt ?? NOW,
  }))
  const columns = ['id', 'project_id', 'email', 'email_key', 'subscribed', 'data', 'created_at', 'updated_at'] as const
  await insertMany(db, 'contacts', columns, rows, { jsonb: ['data'] })
  return rows.map((row) => row.id)
}

/** Replaces the data of one contact, or of every contact when no id is given. */
export async function setContactData(db: Db, data: Record<string, unknown>, contactId?: string): Promise<void> {
  // Contact data is JSONB on SQLite (made by jsonb()) and jsonb on PostgreSQL (cast from its text).
  const document = dialectOf(db) === 'sqlite' ? sql`jsonb(${JSON.stringify(data)})` : sql`CAST(${JSON.stringify(data)} AS jsonb)`
  let update = db.updateTable('contacts').set({ data: document as never })
  if (contactId) update = update.where('id', '=', contactId)
  await update.execute()
}

export async function insertEvent(db: Db, projectId: number, contactId: string, name: string, at: number): Promise<void> {
  await db.insertInto('events').values({ project_id: projectId, contact_id: contactId, name, data: null, created_at: at }).execute()
}

/** An email to the contact with these events on it, as the MTA would have recorded them. */
export async function insertEmail(db: Db, projectId: number, contactId: string, events: ReadonlyArray<[EmailStatus, number]>): Promise<string> {
  const id = newId()
  await db
    .insertInto('emails')
    .values({
      id,
      project_id: projectId,
      domain_id: null,
      contact_id: contactId,
      from_address: 'news@sender.example',
      recipients: '{"to":["x@example.com"]}',
      subject: 'Hello',
      message_id: `<${id}@sender.example>`,
      status: events.at(-1)?.[0] ?? 'QUEUED',
      scheduled_at: null,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute()
  for (const [status, at] of events) await db.insertInto('email_events').values({ email_id: id, status, data: null, created_at: at }).execute()
  return id
}

/** A segment condition of one filter. */
export const oneFilter = (filter: object) => ({ logic: 'AND', groups: [{ filters: [filter] }] })

/** The segment events recorded for a segment, as `<entry|exit> <email>` in order. */
export async function segmentChanges(db: Db, segmentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('events as e')
    .innerJoin('contacts as c', 'c.id', 'e.contact_id')
    .select(['e.name', 'c.email'])
    .where('e.name', 'like', `segment.${segmentId}.%`)
    .orderBy('e.id')
    .execute()
  return rows.map((row) => `${row.name.slice(`segment.${segmentId}.`.length)} ${row.email}`)
}

/** The addresses of the contacts recorded as a tracked segment's members, in order. */
export const recordedMembers = async (db: Db, segmentId: string): Promise<string[]> =>
  (
    await db
      .selectFrom('segment_memberships as ms')
      .innerJoin('contacts as c', 'c.id', 'ms.contact_id')
      .select('c.email')
      .where('ms.segment_id', '=', segmentId)
      .orderBy('c.email')
      .execute()
  ).map((row) => row.email)
