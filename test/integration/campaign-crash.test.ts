// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'
import { openDirect } from '../helpers/direct-db.ts'
import { until } from '../helpers/until.ts'

const COUNT = 240
let w: ChildWorld

beforeAll(async () => {
  w = await createChildWorld('campaign-crash-secret-campaign-crash-0', { delayMs: 10 })
})

afterAll(() => w.close())

test('killed with SIGKILL in the middle of a campaign, the server goes on where it stopped and sends no contact two emails', async () => {
  await w.start()
  await w.verifiedDomain()
  const emails = Array.from({ length: COUNT }, (_, i) => `fan${i}@example.net`)
  await Promise.all(emails.map((email) => w.api('POST', '/contacts', { email })))
  const campaign = (
    await w.api('POST', '/campaigns', { name: 'Crash', subject: 'Hi', body: '<p>Hi {{email}}</p>', from: 'news@sender.example.com', audienceType: 'ALL', batchSize: 40 })
  ).body.data
  expect((await w.api('POST', `/campaigns/${campaign.id}/send`, {})).status).toBe(200)
  await until(async () => w.mx.received.length, (n) => n >= 50, 10_000, 10)
  await w.kill()
  expect(w.mx.received.length).toBeGreaterThanOrEqual(50)
  expect(w.mx.received.length).toBeLessThan(COUNT)

  await w.start()
  const status = await until(async () => (await w.api('GET', `/campaigns/${campaign.id}`)).body.data.status as string, (s) => s === 'SENT', 30_000)
  expect(status).toBe('SENT')
  // The server's database, read beside it: SQLite's file, or its PostgreSQL database.
  const database = await openDirect(w)
  try {
    await until(async () => (await database.db.selectFrom('deliveries').select('id').where('state', '!=', 'delivered').execute()).length, (n) => n === 0, 20_000)
    const perContact = await database.db.selectFrom('emails').select(['contact_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('contact_id').execute()
    expect(perContact).toHaveLength(COUNT)
    expect(perContact.every((row) => Number(row.n) === 1)).toBe(true)
  } finally {
    await database.close()
  }
  // A message in flight at the kill may arrive twice, as the same email (same Message-ID); no contact gets two emails.
  const ids = new Map<string, Set<string>>()
  for (const message of w.mx.received) {
    const id = /^message-id:\s*(\S+)/im.exec(message.raw.toString('latin1'))![1]!
    for (const to of message.to) ids.set(to, (ids.get(to) ?? new Set()).add(id))
  }
  for (const email of emails) expect(ids.get(email)?.size).toBe(1)
})
