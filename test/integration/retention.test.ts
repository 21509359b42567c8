// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cli } from '../helpers/cli.ts'
import { ManualClock } from '../helpers/clock.ts'
import { cliFlags, emailOf, receivedBy } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const clock = new ManualClock()
let accepting = false
let w: World

beforeAll(async () => {
  w = await createWorld({
    clock,
    settings: { 'retention-days': '1' },
    mx: { onRcpt: (to) => (to.startsWith('later@') && !accepting ? { code: 451, message: '4.3.0 Try again later' } : undefined) },
  })
})

afterAll(() => w.close())

const send = async (to: string) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: `For ${to}`, html: '<p>Hello</p>', text: 'Hello' } })).body
    .emailId as string
const bodies = async () => Number((await w.t.app.db.selectFrom('email_contents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
const events = async () => Number((await w.t.app.db.selectFrom('email_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

describe('the pruner', () => {
  let waiting: string

  test('deletes the bodies of settled emails older than retentionDays; the emails and their events stay', async () => {
    const delivered = await send('jane@example.net')
    waiting = await send('later@example.net')
    await w.deliver()
    const before = await emailOf(w, delivered)
    expect(before.html).toContain('Hello')
    expect((await emailOf(w, waiting)).emailEvents.at(-1).status).toBe('DELIVERY_DELAYED')
    clock.advance(DAY + HOUR)
    const fresh = await send('fresh@example.net')
    await w.deliver()

    expect(await w.t.app.pruner.tick()).toEqual({ emails: 1, bytes: expect.any(Number) })
    const after = await emailOf(w, delivered)
    expect(after).toEqual({ ...before, html: null, text: null })
    expect((await emailOf(w, waiting)).html).toContain('Hello')
    expect((await emailOf(w, fresh)).html).toContain('Hello')
    expect(await w.t.app.pruner.tick()).toEqual({ emails: 0, bytes: 0 })
  })

  test('a delivery that waited past the retention still sends its whole message; once settled, its body goes', async () => {
    accepting = true
    clock.advance(HOUR)
    await w.deliver()
    const message = receivedBy(w, 'later@example.net')
    expect(message.raw).toContain('Hello')
    expect((await emailOf(w, waiting)).emailEvents.at(-1).status).toBe('DELIVERED')
    expect(await w.t.app.pruner.tick()).toMatchObject({ emails: 1 })
    expect((await emailOf(w, waiting)).html).toBeNull()
  })
})

describe('mailstead prune', () => {
  // The command runs on the real clock, past every email of this test's manual one: each settled body is due.
  test('--dry-run counts what would go and deletes nothing', async () => {
    await send('cli1@example.net')
    await send('cli2@example.net')
    await w.deliver()
    const due = await bodies()
    const result = await cli(['prune', '--dry-run', '--json', ...cliFlags(w), '--retention-days', '1'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.out)).toMatchObject({ retentionDays: 1, dryRun: true, emails: due, bytes: expect.any(Number) })
    expect(due).toBeGreaterThanOrEqual(3)
    expect(await bodies()).toBe(due)
  })

  test('asks before deleting; declined, nothing goes; with --yes, the bodies go and every event stays', async () => {
    const due = await bodies()
    const eventsBefore = await events()
    const flags = [...cliFlags(w), '--retention-days', '1']
    const declined = await cli(['prune', ...flags], { answer: false })
    expect(declined.code).toBe(2)
    expect(await bodies()).toBe(due)
    const result = await cli(['prune', '--yes', ...flags])
    expect(result.code).toBe(0)
    expect(result.out).toMatch(new RegExp(`^Deleted the bodies of ${due} emails created before .* \\(1 day\\): .*; their events and status stay$`))
    expect(await bodies()).toBe(0)
    expect(await events()).toBe(eventsBefore)
  })

  test('retentionDays 0 keeps every body', async () => {
    await send('kept@example.net')
    await w.deliver()
    const result = await cli(['prune', '--yes', ...cliFlags(w), '--retention-days', '0'])
    expect(result.out).toBe('retentionDays is 0: bodies are kept forever, nothing to prune')
    expect(await bodies()).toBe(1)
  })

  test('queue retry refuses a failed delivery whose body is gone, which would have nothing to send', async () => {
    const id = await send('gone@example.net')
    await w.deliver()
    expect((await cli(['prune', '--yes', ...cliFlags(w), '--retention-days', '1'])).code).toBe(0)
    const delivery = await w.t.app.db.updateTable('deliveries').set({ state: 'failed' }).where('email_id', '=', id).returning('id').executeTakeFirstOrThrow()
    const result = await cli(['queue', 'retry', String(delivery.id), ...cliFlags(w)])
    expect(result.code).toBe(1)
    expect(result.err).toContain(`Delivery ${delivery.id} cannot be retried: its email's body was deleted`)
  })
})
