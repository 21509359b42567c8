// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { onPostgres, openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import type { Db, DeliveryState } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { claimDue } from './queue.repository.ts'

const NOW = Date.parse('2026-11-01T12:00:00Z')
const NONE = { domains: [], projects: [] }

let database: Database
let db: Db

beforeEach(async () => {
  database = await openTestDatabase()
  db = database.db
  await db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
  await db
    .insertInto('emails')
    .values({ id: 'e1', project_id: 1, domain_id: null, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: '<e1@x>', dkim_header: null, status: 'QUEUED', scheduled_at: null, created_at: 1, updated_at: 1 })
    .execute()
})

afterEach(() => database.close())

/** Deliveries of e1, one per domain given, due at `NOW - i` (the first given is the newest). */
async function deliveries(domains: string[], state: DeliveryState = 'queued') {
  await db
    .insertInto('deliveries')
    .values(domains.map((domain, i) => ({ email_id: 'e1', project_id: 1, recipient: `r${i}@${domain}`, recipient_domain: domain, state, next_attempt_at: NOW - i, expires_at: NOW + 1, created_at: 1, updated_at: 1 })))
    .execute()
}

const CLAIMANT = { owner: 'this process', leaseMs: 30_000 }
const claim = (trx: Db, limit: number, perDomain = 10) => claimDue(trx, CLAIMANT, NOW, limit, perDomain, NONE)
const ids = (rows: Array<{ id: number }>) => rows.map((row) => row.id).sort((a, b) => a - b)

describe('claimDue', () => {
  test('takes the oldest due deliveries, at most perDomain of one domain, and marks them sending with an attempt', async () => {
    await deliveries(['a.example', 'a.example', 'a.example', 'b.example'])
    await db.insertInto('deliveries').values({ email_id: 'e1', project_id: 1, recipient: 'later@c.example', recipient_domain: 'c.example', state: 'queued', next_attempt_at: NOW + 1, expires_at: NOW + 2, created_at: 1, updated_at: 1 }).execute()
    const claimed = await writeTransaction(db, (trx) => claim(trx, 10, 2))
    expect(claimed.map((d) => d.recipient).sort()).toEqual(['r1@a.example', 'r2@a.example', 'r3@b.example'])
    expect(claimed.every((d) => d.state === 'sending' && d.attempts === 1 && d.updated_at === NOW)).toBe(true)
  })

  test('two claims one after the other take no delivery twice', async () => {
    await deliveries(['a.example', 'b.example', 'c.example', 'd.example'])
    const first = await writeTransaction(db, (trx) => claim(trx, 2))
    const second = await writeTransaction(db, (trx) => claim(trx, 10))
    expect(first).toHaveLength(2)
    expect(ids([...first, ...second])).toEqual([1, 2, 3, 4])
  })

  // SQLite has one writer at a time: there two claims cannot overlap.
  test.skipIf(!onPostgres)('on PostgreSQL, a claim while another is open skips its rows rather than waiting for it or taking them', async () => {
    await deliveries(['a.example', 'b.example', 'c.example', 'd.example'])
    const [first, second] = await writeTransaction(db, async (trx) => {
      const first = await claim(trx, 2)
      // Another connection, while the first transaction holds its rows.
      const second = await writeTransaction(db, (other) => claim(other, 10))
      return [first, second]
    })
    expect(first).toHaveLength(2)
    expect(second).toHaveLength(2)
    expect(ids([...first, ...second])).toEqual([1, 2, 3, 4])
  })
})
