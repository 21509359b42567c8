// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { deliveriesOf } from '../../src/core/queue/index.ts'
import { PROJECT_DISABLED_HOLD } from '../../src/core/queue/index.ts'
import { setProjectDisabled } from '../../src/core/projects/projects.service.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { cli } from '../helpers/cli.ts'
import { ManualClock } from '../helpers/clock.ts'
import { cliFlags, emailOf, receivedCount, statusesOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

const HOUR = 3_600_000
let w: World
let clock: ManualClock
let logLines: any[]

afterEach(() => w.close())

async function world() {
  clock = new ManualClock(Date.parse('2026-11-10T09:00:00Z'))
  logLines = []
  w = await createWorld({ clock, logger: createLogger('info', (line) => logLines.push(JSON.parse(line))), settings: { 'delivery-max-age-hours': '2' } })
  // The loop runs only when a test says so: what is queued stays queued until then.
  await w.t.app.deliveries.stop()
}

const send = async (to: string[], extra: Record<string, unknown> = {}) => {
  const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hello', text: 'Hi', ...extra } })
  expect(sent.status).toBe(200)
  return sent.body.emailId as string
}
const operator = async (...args: string[]) => expect((await cli([...args, ...cliFlags(w)])).code).toBe(0)
/** As the CLI does it, at the test clock's time: how long mail was held is measured by that clock. */
const setDisabled = (disabled: boolean) => w.t.app.writer.run((trx) => setProjectDisabled(trx, w.projectId, disabled, clock.now()))
const deliveries = (emailId: string) => deliveriesOf(w.t.app.db, emailId)
async function deliverNow() {
  await w.t.app.deliveries.start()
  await w.deliver()
  await w.t.app.deliveries.stop()
}

describe('mail of a disabled project', () => {
  test('is held with its reason, uncounted, for longer than mail is retried, and goes once the project is enabled: never bounced', async () => {
    await world()
    const emailId = await send(['held1@example.net', 'held2@example.net'])
    await setDisabled(true)
    await deliverNow()
    expect(receivedCount(w, 'held1@example.net') + receivedCount(w, 'held2@example.net')).toBe(0)
    for (const row of await deliveries(emailId)) expect(row).toMatchObject({ state: 'paused', attempts: 0, last_response: PROJECT_DISABLED_HOLD })

    clock.advance(5 * HOUR)
    await deliverNow()
    expect(w.mx.received).toHaveLength(0)
    await setDisabled(false)
    await deliverNow()
    expect(receivedCount(w, 'held1@example.net')).toBe(1)
    expect(receivedCount(w, 'held2@example.net')).toBe(1)
    for (const row of await deliveries(emailId)) expect(row).toMatchObject({ state: 'delivered', attempts: 1 })
    const statuses = statusesOf(await emailOf(w, emailId))
    expect(statuses).not.toContain('BOUNCED')
    expect(statuses.filter((status) => status === 'DELIVERED')).toHaveLength(2)
  })

  test('whose time comes while the project is disabled is held at its attempt, uncounted, and says why', async () => {
    await world()
    const at = new Date(clock.now() + HOUR).toISOString()
    const emailId = await send(['later@example.net'], { scheduledAt: at })
    await setDisabled(true)
    expect((await deliveries(emailId))[0]).toMatchObject({ state: 'scheduled' })
    clock.advance(HOUR)
    await deliverNow()
    expect(w.mx.received).toHaveLength(0)
    expect((await deliveries(emailId))[0]).toMatchObject({ state: 'paused', attempts: 0, last_response: PROJECT_DISABLED_HOLD })
    expect(logLines.some((line) => line.tag === 'HELD[project-disabled]' && line.msg === 'later@example.net')).toBe(true)

    clock.advance(3 * HOUR)
    await setDisabled(false)
    await deliverNow()
    expect(receivedCount(w, 'later@example.net')).toBe(1)
    expect((await deliveries(emailId))[0]).toMatchObject({ state: 'delivered', attempts: 1 })
  })

  test('does not hold back other projects\' mail, nor release its own paused campaign\'s when enabled', async () => {
    await world()
    const paused = await send(['campaign@example.net'])
    // As a campaign's pause leaves its deliveries.
    await w.t.app.db.updateTable('deliveries').set({ state: 'paused' }).where('email_id', '=', paused).execute()
    const other = await w.t.project('Other sender')
    await w.t.app.db.updateTable('domains').set({ project_id: other.id }).where('id', '=', w.domain.id).execute()
    const sent = await w.t.request('POST', '/api/v1/emails', { key: other.secretKey, body: { from: 'bo@sender.example.com', to: ['free@example.net'], subject: 'Hi', text: 'Hi' } })
    expect(sent.status).toBe(200)
    await operator('project', 'disable', String(w.projectId), '--yes')
    await operator('project', 'enable', String(w.projectId))
    await operator('project', 'disable', String(w.projectId), '--yes')
    await deliverNow()
    expect(receivedCount(w, 'free@example.net')).toBe(1)
    expect(receivedCount(w, 'campaign@example.net')).toBe(0)
    expect((await deliveries(paused))[0]).toMatchObject({ state: 'paused', last_response: null })
  })
})
