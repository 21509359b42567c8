import type { Insertable } from 'kysely'
import type { DeliveryState, DeliveryTable, Db, EmailContentTable, EmailStatus, EmailTable } from '../../db/schema.ts'
import { prepared } from '../../db/prepared.ts'

export async function insertEmail(db: Db, row: EmailTable, content: EmailContentTable) {
  await db.insertInto('emails').values(row).execute()
  await db.insertInto('email_contents').values(content).execute()
}

export const insertDeliveries = (db: Db, rows: Insertable<DeliveryTable>[]) =>
  rows.length === 0 ? Promise.resolve() : db.insertInto('deliveries').values(rows).execute()

/** Records an event and makes its status the email's. */
export async function addEmailEvent(db: Db, emailId: string, status: EmailStatus, data: Record<string, unknown> | null, at: number) {
  await insertEvent(db, { emailId, status, data: data === null ? null : JSON.stringify(data), at })
  await setStatus(db, { emailId, status, at })
}

const insertEvent = prepared((db, p: { emailId: string; status: EmailStatus; data: string | null; at: number }) =>
  db.insertInto('email_events').values({ email_id: p.emailId, status: p.status, data: p.data, created_at: p.at }),
)

const setStatus = prepared((db, p: { emailId: string; status: EmailStatus; at: number }) =>
  db.updateTable('emails').set({ status: p.status, updated_at: p.at }).where('id', '=', p.emailId),
)

/** The email with its bodies (not its built message). */
export const findEmail = (db: Db, projectId: number, id: string) =>
  withBodies(db).where('emails.project_id', '=', projectId).where('emails.id', '=', id).executeTakeFirst()

export const withBodies = (db: Db) =>
  db.selectFrom('emails').innerJoin('email_contents', 'email_contents.email_id', 'emails.id').selectAll('emails').select(['email_contents.html', 'email_contents.text'])

export const emailEvents = (db: Db, emailId: string) =>
  db.selectFrom('email_events').selectAll().where('email_id', '=', emailId).orderBy('created_at').orderBy('id').execute()

export const deliveriesOf = (db: Db, emailId: string) =>
  db.selectFrom('deliveries').selectAll().where('email_id', '=', emailId).orderBy('id').execute()

export const setDeliveriesOf = (db: Db, emailId: string, from: DeliveryState, changes: { state?: DeliveryState; next_attempt_at?: number; expires_at?: number }, now: number) =>
  db.updateTable('deliveries').set({ ...changes, updated_at: now }).where('email_id', '=', emailId).where('state', '=', from).execute()
