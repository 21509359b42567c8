// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import type { Db, DeliveryState } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { DAY_MS, pruneBodies, retentionCutoff } from './retention.ts'

const NOW = Date.parse('2026-11-01T12:00:00Z')
const OLD = NOW - 40 * DAY_MS
const CUTOFF = retentionCutoff(NOW, 30)

let database: Database
let db: Db
const write = <T>(work: (trx: Db) => Promise<T>) => writeTransaction(db, work)

beforeEach(async () => {
  database = await openTestDatabase()
  db = database.db
  await db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
})

afterEach(() => database.close())

/** An email with its body, one delivery per state given, and an event. */
async function email(id: string, createdAt: number, states: DeliveryState[] = ['delivered']) {
  await db
    .insertInto('emails')
    .values({ id, project_id: 1, domain_id: null, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: `<${id}@x>`, dkim_header: null, status: 'DELIVERED', scheduled_at: null, created_at: createdAt, updated_at: createdAt })
    .execute()
  await db.insertInto('email_contents').values({ email_id: id, html: '<p>héllo</p>', text: 'héllo', mime: new Uint8Array(100) }).execute()
  for (const [i, state] of states.entries()) {
    await db
      .insertInto('deliveries')
      .values({ email_id: id, project_id: 1, recipient: `r${i}@x.com`, recipient_domain: 'x.com', state, next_attempt_at: createdAt, expires_at: createdAt + DAY_MS, created_at: createdAt, updated_at: createdAt })
      .execute()
  }
  await db.insertInto('email_events').values({ email_id: id, status: 'DELIVERED', data: null, created_at: createdAt }).execute()
}

const bodies = async () => (await db.selectFrom('email_contents').select('email_id').orderBy('email_id').execute()).map((r) => r.email_id)
const count = async (table: 'emails' | 'deliveries' | 'email_events') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

describe('pruneBodies', () => {
  test('deletes the bodies of old emails whose deliveries are settled; emails, deliveries and events stay', async () => {
    await email('e1', OLD, ['delivered', 'bounced'])
    await email('e2', OLD, ['failed', 'cancelled', 'suppressed'])
    await email('e3', OLD, [])
    const result = await pruneBodies(db, CUTOFF, { write })
    // Each body: 100 bytes of message, 13 of HTML and 6 of text (UTF-8 bytes, not characters).
    expect(result).toEqual({ emails: 3, bytes: 3 * 119 })
    expect(await bodies()).toEqual([])
    expect([await count('emails'), await count('deliveries'), await count('email_events')]).toEqual([3, 5, 3])
  })

  test('keeps the body of an old email while any of its deliveries waits, in every waiting state', async () => {
    const waiting: DeliveryState[] = ['scheduled', 'queued', 'sending', 'deferred', 'paused']
    for (const state of waiting) await email(`w-${state}`, OLD, ['delivered', state])
    expect(await pruneBodies(db, CUTOFF, { write })).toEqual({ emails: 0, bytes: 0 })
    expect(await bodies()).toHaveLength(waiting.length)
  })

  test('keeps the bodies of emails newer than the cutoff', async () => {
    await email('old', OLD)
    await email('new', CUTOFF + 1)
    await email('edge', CUTOFF)
    await pruneBodies(db, CUTOFF, { write })
    expect(await bodies()).toEqual(['edge', 'new'])
  })

  test('a dry run counts what would go and deletes nothing', async () => {
    await email('e1', OLD)
    await email('e2', OLD, ['queued'])
    expect(await pruneBodies(db, CUTOFF, { write, dryRun: true })).toEqual({ emails: 1, bytes: 119 })
    expect(await bodies()).toEqual(['e1', 'e2'])
  })

  test('goes through more bodies than one read holds, in chunks of one write each', async () => {
    const ids = Array.from({ length: 12_000 }, (_, i) => `m${String(i).padStart(5, '0')}`)
    await writeTransaction(db, async (trx) => {
      for (const [i, id] of ids.entries()) {
        await trx
          .insertInto('emails')
          .values({ id, project_id: 1, domain_id: null, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: id, dkim_header: null, status: 'DELIVERED', scheduled_at: null, created_at: i % 3 === 0 ? NOW : OLD, updated_at: OLD })
          .execute()
        await trx.insertInto('email_contents').values({ email_id: id, html: null, text: null, mime: new Uint8Array(10) }).execute()
      }
    })
    let writes = 0
    const counted = <T>(work: (trx: Db) => Promise<T>) => (writes++, write(work))
    expect(await pruneBodies(db, CUTOFF, { write: counted })).toEqual({ emails: 8000, bytes: 80_000 })
    expect(await bodies()).toHaveLength(4000)
    // Three reads of up to 5000 rows, each of whose old bodies goes in writes of at most 2000.
    expect(writes).toBe(5)
  })

  test('keeps each write to 64 MiB of bodies, since freeing a large one reads all its pages', async () => {
    const mime = new Uint8Array(512 * 1024)
    await writeTransaction(db, async (trx) => {
      for (let i = 0; i < 140; i++) {
        const id = `big${String(i).padStart(3, '0')}`
        await trx
          .insertInto('emails')
          .values({ id, project_id: 1, domain_id: null, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: id, dkim_header: null, status: 'DELIVERED', scheduled_at: null, created_at: OLD, updated_at: OLD })
          .execute()
        await trx.insertInto('email_contents').values({ email_id: id, html: null, text: null, mime }).execute()
      }
    })
    const sizes: number[] = []
    const counted = <T>(work: (trx: Db) => Promise<T>) => write(work).then((done) => (sizes.push((done as { emails: number }).emails), done))
    expect(await pruneBodies(db, CUTOFF, { write: counted })).toEqual({ emails: 140, bytes: 140 * mime.length })
    expect(sizes).toEqual([128, 12])
  })

  test('a delivery queued again between the read and the delete keeps its body', async () => {
    await email('e1', OLD, ['failed'])
    await email('e2', OLD, ['failed'])
    const requeueFirst = <T>(work: (trx: Db) => Promise<T>) =>
      write(async (trx) => {
        await trx.updateTable('deliveries').set({ state: 'queued' }).where('email_id', '=', 'e1').execute()
        return work(trx)
      })
    expect(await pruneBodies(db, CUTOFF, { write: requeueFirst })).toEqual({ emails: 1, bytes: 119 })
    expect(await bodies()).toEqual(['e1'])
  })

  test('stops between chunks when asked', async () => {
    await email('e1', OLD)
    expect(await pruneBodies(db, CUTOFF, { write, stopping: () => true })).toEqual({ emails: 0, bytes: 0 })
    expect(await bodies()).toEqual(['e1'])
  })
})
