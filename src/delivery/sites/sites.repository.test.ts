// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import type { DeliveryState } from '../../db/schema.ts'
import { siteQueues } from './sites.repository.ts'

let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
  const { db } = database
  await db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
  await db
    .insertInto('emails')
    .values({ id: 'e1', project_id: 1, domain_id: null, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: '<e1@x>', dkim_header: null, status: 'QUEUED', scheduled_at: null, created_at: 1, updated_at: 1 })
    .execute()
  const waiting: Array<[string, DeliveryState]> = [
    ['a.example', 'queued'],
    ['a.example', 'deferred'],
    ['b.example', 'scheduled'],
    ['c.example', 'queued'],
    ['d.example', 'queued'],
    ['d.example', 'delivered'],
  ]
  await db
    .insertInto('deliveries')
    .values(waiting.map(([domain, state], i) => ({ email_id: 'e1', project_id: 1, recipient: `r${i}@${domain}`, recipient_domain: domain, state, next_attempt_at: 1, expires_at: 2, created_at: 1, updated_at: 1 })))
    .execute()
  await db.insertInto('delivery_site_domains').values([{ domain: 'c.example', site: 'gmail', updated_at: 1 }, { domain: 'd.example', site: 'gmail', updated_at: 1 }]).execute()
})

afterAll(() => database.close())

test('siteQueues counts waiting deliveries by site, and each domain not looked up yet on its own', async () => {
  expect(Object.fromEntries(await siteQueues(database.db, 1000))).toEqual({ 'domain:a.example': 2, 'domain:b.example': 1, gmail: 2 })
})
