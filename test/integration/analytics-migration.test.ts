// @database
import { afterEach, expect, test } from 'bun:test'
import type { Kysely } from 'kysely'
import { migrationsFor } from '../../migrations/index.ts'
import { dialectOf, type Database } from '../../src/db/client.ts'
import { migrate } from '../../src/db/migrator.ts'
import { openPostgres } from '../../src/db/postgres.ts'
import type { Db } from '../../src/db/schema.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { freshPostgres, onPostgres, type TestDatabase } from '../helpers/postgres.ts'
import { insertDomain, insertProject } from '../helpers/seed-rows.ts'

/*
 * Migrations 0028 and 0035 on a database that already holds mail: the new counters are filled
 * from the email events recorded before them, on either dialect.
 */

const HOUR = 3_600_000
const T = Date.parse('2026-11-01T12:00:00Z')
const hour = (ms: number) => Math.floor(ms / HOUR)

let database: Database | undefined
let made: TestDatabase | undefined

afterEach(async () => {
  await database?.close()
  await made?.drop()
  database = made = undefined
})

async function emptyDatabase(): Promise<Database> {
  if (!onPostgres) return openSqlite(':memory:')
  made = await freshPostgres({ empty: true })
  return openPostgres(made.url)
}

let emails = 0
/** An email of the domain with its events: [status, data, when]. */
async function emailWithEvents(db: Db, projectId: number, domainId: number | null, events: Array<[string, Record<string, unknown> | null, number]>) {
  const id = `e${++emails}`
  await db
    .insertInto('emails')
    .values({ id, project_id: projectId, domain_id: domainId, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: `<${id}@x>`, dkim_header: null, status: 'QUEUED', scheduled_at: null, created_at: T, updated_at: T })
    .execute()
  for (const [status, data, at] of events) {
    await db.insertInto('email_events').values({ email_id: id, status: status as never, data: data && JSON.stringify(data), created_at: at }).execute()
  }
}

test('0028 fills the new counters from the events recorded; an hour counted live keeps its own four', async () => {
  database = await emptyDatabase()
  const { db } = database
  const all = migrationsFor(dialectOf(db))
  await migrate(db, all.slice(0, all.findIndex((m) => m.name === '0028_analytics')))
  const project = await insertProject(db, 'p', T)
  const domain = await insertDomain(db, project, 'sender.example.com', T)
  const other = await insertDomain(db, project, 'news.example.com', T)
  const recipient = { recipient: 'r@example.net' }
  // Noon: counted live since 0014, so its row is there: one delivery, and one complaint however
  // many reports said it.
  await emailWithEvents(db, project, domain, [
    ['QUEUED', null, T],
    ['SENT', recipient, T],
    ['DELIVERED', { ...recipient, attempt: 1 }, T],
    ['OPENED', { userAgent: 'Mail' }, T + 60_000],
    ['OPENED', null, T + 120_000],
    ['CLICKED', { url: 'https://a.example/' }, T + 180_000],
    ['COMPLAINED', { ...recipient, source: 'arf' }, T + 240_000],
    ['COMPLAINED', { ...recipient, source: 'arf' }, T + 300_000],
  ])
  // The table as it was before 0028, without the columns the schema's type now has.
  await (db as Kysely<any>).insertInto('sending_counters').values({ project_id: project, domain_id: domain, hour: hour(T), delivered: 1, bounced: 0, hard_bounced: 0, complained: 1 }).execute()
  // Two hours earlier, older than the rows kept: a deferral, a hard bounce at the attempt, one reported later.
  const early = T - 2 * HOUR
  await emailWithEvents(db, project, domain, [
    ['SENT', recipient, early],
    ['DELIVERY_DELAYED', { ...recipient, attempt: 1, category: 'greylisted' }, early],
    ['BOUNCED', { ...recipient, attempt: 2, category: 'unknown-user', hard: true }, early],
  ])
  await emailWithEvents(db, project, other, [
    ['SENT', recipient, early],
    ['DELIVERED', { ...recipient, attempt: 1 }, early],
    ['BOUNCED', { ...recipient, hard: false, source: 'dsn' }, early + 60_000],
  ])

  await migrate(db, all)
  const rows = await db.selectFrom('sending_counters').selectAll().orderBy('hour').orderBy('domain_id').execute()
  const zero = { sent: 0, delivered: 0, deferred: 0, bounced: 0, reported_bounced: 0, hard_bounced: 0, complained: 0, opened: 0, clicked: 0 }
  expect(rows.map((row) => ({ ...row }))).toEqual([
    { project_id: project, domain_id: domain, hour: hour(early), ...zero, sent: 1, deferred: 1, bounced: 1, hard_bounced: 1 },
    { project_id: project, domain_id: other, hour: hour(early), ...zero, sent: 1, delivered: 1, reported_bounced: 1 },
    { project_id: project, domain_id: domain, hour: hour(T), ...zero, sent: 1, delivered: 1, complained: 1, opened: 2, clicked: 1 },
  ])
})

/** A delivery of the email, simulated (a sandbox's) or not. */
const deliveryOf = (db: Db, emailId: string, projectId: number, sandbox: 0 | 1) =>
  (db as Kysely<any>)
    .insertInto('deliveries')
    .values({ email_id: emailId, project_id: projectId, recipient: 'r@example.net', recipient_domain: 'example.net', state: 'delivered', sandbox, next_attempt_at: T, expires_at: T + HOUR, created_at: T, updated_at: T })
    .execute()

test("0035 counts a sandbox's mail recorded before it, and leaves the domains' counters and a removed domain's mail as they were", async () => {
  database = await emptyDatabase()
  const { db } = database
  const all = migrationsFor(dialectOf(db))
  await migrate(db, all.slice(0, all.findIndex((m) => m.name === '0035_sandbox_counters')))
  const sandbox = await insertProject(db, 'sandbox', T)
  await db.updateTable('projects').set({ sandbox: 1 }).where('id', '=', sandbox).execute()
  const real = await insertProject(db, 'real', T)
  const domain = await insertDomain(db, real, 'sender.example.com', T)
  const recipient = { recipient: 'r@example.net' }
  await emailWithEvents(db, sandbox, null, [
    ['QUEUED', null, T],
    ['SENT', recipient, T],
    ['BOUNCED', { ...recipient, attempt: 1, hard: true }, T],
  ])
  await deliveryOf(db, `e${emails}`, sandbox, 1)
  await emailWithEvents(db, sandbox, null, [
    ['SENT', recipient, T],
    ['DELIVERED', { ...recipient, attempt: 1 }, T],
    ['COMPLAINED', { ...recipient, source: 'arf' }, T + 60_000],
  ])
  await deliveryOf(db, `e${emails}`, sandbox, 1)
  // A real project's email whose domain was removed: no domain either, but not simulated.
  await emailWithEvents(db, real, null, [['SENT', recipient, T], ['DELIVERED', { ...recipient, attempt: 1 }, T]])
  await deliveryOf(db, `e${emails}`, real, 0)
  const zero = { sent: 0, delivered: 0, deferred: 0, bounced: 0, reported_bounced: 0, hard_bounced: 0, complained: 0, opened: 0, clicked: 0 }
  const counted = { project_id: real, domain_id: domain, hour: hour(T), ...zero, sent: 4, delivered: 4 }
  await db.insertInto('sending_counters').values(counted).execute()

  await migrate(db, all)
  expect((await db.selectFrom('sending_counters').selectAll().execute()).map((row) => ({ ...row }))).toEqual([counted])
  const rows = await db.selectFrom('sandbox_counters').selectAll().execute()
  expect(rows.map((row) => ({ ...row }))).toEqual([{ project_id: sandbox, hour: hour(T), ...zero, sent: 2, delivered: 1, bounced: 1, hard_bounced: 1, complained: 1 }])
})
