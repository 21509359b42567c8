// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'
import { openDirect } from '../helpers/direct-db.ts'
import { until } from '../helpers/until.ts'

let w: ChildWorld

beforeAll(async () => {
  w = await createChildWorld('crash-test-secret-crash-test-secret-0', { delayMs: 20 })
})

afterAll(() => w.close())

test('killed with SIGKILL in the middle of a run, the server loses no accepted message when it starts again', async () => {
  await w.start()
  await w.verifiedDomain()
  const recipients = Array.from({ length: 300 }, (_, i) => `user${i}@example.net`)
  const accepted: string[] = []
  for (let i = 0; i < recipients.length; i += 100) {
    const batch = recipients.slice(i, i + 100).map((to) => ({ from: 'app@sender.example.com', to, subject: `Hello ${to}`, text: 'Hi' }))
    const answer = await w.api('POST', '/api/v1/emails/batch', batch)
    expect(answer.status).toBe(200)
    accepted.push(...answer.body.data.map((d: { emailId: string }) => d.emailId))
  }
  await until(async () => w.mx.received.length, (n) => n >= 40, 5000, 10)
  await w.kill()
  const atKill = w.mx.received.length
  expect(atKill).toBeGreaterThanOrEqual(40)
  expect(atKill).toBeLessThan(300)

  await w.start()
  // The server's database, read beside it: SQLite's file, or its PostgreSQL database.
  const database = await openDirect(w)
  try {
    const byState = async () =>
      Object.fromEntries((await database.db.selectFrom('deliveries').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('state').execute()).map((r) => [r.state, Number(r.n)]))
    expect(await until(byState, (states) => states.delivered === 300, 15_000)).toEqual({ delivered: 300 })
    const emails = await database.db.selectFrom('emails').select('id').execute()
    expect(emails.map((e) => e.id).sort()).toEqual([...accepted].sort())
  } finally {
    await database.close()
  }
  const got = new Set(w.mx.received.flatMap((m) => m.to))
  for (const to of recipients) expect(got.has(to)).toBe(true)
  // Only what was in flight at the kill can have arrived twice.
  expect(w.mx.received.length - recipients.length).toBeLessThanOrEqual(100)
})
