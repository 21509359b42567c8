// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cli } from '../helpers/cli.ts'
import { cliFlags, emailOf, receivedCount, statusesOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let flags: string[]
/** Delivery ids by recipient. */
const ids: Record<string, number> = {}

beforeAll(async () => {
  w = await createWorld()
  flags = cliFlags(w)
  // stuck.example has no DNS answer yet (SERVFAIL): mail to it is deferred.
  w.dns.set('stuck.example', { servfail: true })
  const send = (to: string, extra: Record<string, unknown> = {}) =>
    w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hi', ...extra } })
  await send('a@stuck.example')
  await send('b@stuck.example')
  await send('c@later.example', { scheduledAt: new Date(Date.now() + 3600_000).toISOString() })
  await send('d@example.net')
  await w.deliver()
  for (const row of await w.t.app.db.selectFrom('deliveries').select(['id', 'recipient']).execute()) ids[row.recipient] = row.id
})

afterAll(() => w.close())

const queue = (...argv: string[]) => cli(['queue', ...argv, ...flags])
const stateOf = async (recipient: string) =>
  (await w.t.app.db.selectFrom('deliveries').select('state').where('id', '=', ids[recipient]!).executeTakeFirstOrThrow()).state

describe('mailstead queue', () => {
  test('stats counts deliveries by state, and pending ones by destination domain', async () => {
    const json = await queue('stats', '--json')
    expect(json.code).toBe(0)
    expect(JSON.parse(json.out)).toEqual({
      byState: { deferred: 2, scheduled: 1, delivered: 1 },
      byDomain: [
        { domain: 'stuck.example', count: 2 },
        { domain: 'later.example', count: 1 },
      ],
    })
    const text = await queue('stats')
    const lines = text.out.split('\n')
    expect(lines[0]).toMatch(/^STATE\s+COUNT$/)
    expect(lines).toContainEqual(expect.stringMatching(/^deferred\s+2$/))
    expect(lines).toContainEqual(expect.stringMatching(/^bounced\s+0$/))
    expect(lines).toContainEqual(expect.stringMatching(/^PENDING FOR\s+COUNT$/))
    expect(lines).toContainEqual(expect.stringMatching(/^stuck\.example\s+2$/))
  })

  test('list shows pending deliveries, soonest first; --state picks one state', async () => {
    const pending = await queue('list')
    expect(pending.code).toBe(0)
    const lines = pending.out.split('\n')
    expect(lines[0]).toMatch(/^ID\s+STATE\s+RECIPIENT\s+ATTEMPTS\s+NEXT ATTEMPT\s+LAST RESPONSE$/)
    const recipients = lines.slice(1).map((line) => line.split(/\s+/)[2])
    expect(recipients.slice(0, 2).sort()).toEqual(['a@stuck.example', 'b@stuck.example'])
    expect(recipients[2]).toBe('c@later.example')
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${ids['a@stuck.example']}\\s+deferred\\s+a@stuck\\.example\\s+1\\s+\\d{4}-\\S+\\s+\\S`)))

    const delivered = await queue('list', '--state', 'delivered', '--json')
    // camelCase keys and ISO 8601 times, as the HTTP API shows a delivery: not the database's row.
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(JSON.parse(delivered.out)).toEqual([
      { id: ids['d@example.net'], emailId: expect.any(String), recipient: 'd@example.net', domain: 'example.net', state: 'delivered', attempts: 1, nextAttemptAt: iso, lastResponse: expect.any(String), createdAt: iso },
    ])
    expect((await queue('list', '--state', 'bounced')).out).toBe('Nothing to show')
    expect(await queue('list', '--state', 'stuck')).toMatchObject({ code: 2, err: expect.stringContaining('--state must be one of') })
  })

  test('retry ID sends a deferred delivery now; --all-deferred sends every one', async () => {
    w.dns.records('stuck.example', { type: 'MX', exchange: 'mx.example.net', priority: 10 })
    expect(await queue('retry', String(ids['a@stuck.example']))).toMatchObject({ code: 0, out: '1 delivery queued again' })
    await w.deliver()
    expect(receivedCount(w, 'a@stuck.example')).toBe(1)
    expect(await stateOf('a@stuck.example')).toBe('delivered')
    expect(await stateOf('b@stuck.example')).toBe('deferred')

    // Without a terminal to ask, nothing is retried unless --yes says so.
    expect(await queue('retry', '--all-deferred')).toMatchObject({ code: 2, err: expect.stringContaining('Not confirmed; nothing changed') })
    expect(await stateOf('b@stuck.example')).toBe('deferred')
    expect(await queue('retry', '--all-deferred', '--yes')).toMatchObject({ code: 0, out: '1 delivery queued again' })
    await w.deliver()
    expect(receivedCount(w, 'b@stuck.example')).toBe(1)
    expect(await queue('retry', '--all-deferred', '--yes', '--json')).toMatchObject({ code: 0, out: JSON.stringify({ target: 'all-deferred', retried: 0 }) })
  })

  test('retry refuses a delivery that is not deferred or failed, and one that does not exist', async () => {
    expect(await queue('retry', String(ids['d@example.net']))).toMatchObject({ code: 1, err: expect.stringContaining('is delivered') })
    expect(await queue('retry', '999999')).toMatchObject({ code: 1, err: expect.stringContaining('not found') })
    expect(await queue('retry')).toMatchObject({ code: 2, err: expect.stringContaining('Delivery ID') })
  })

  test('cancel takes a delivery out of the queue and records it on the email', async () => {
    const id = ids['c@later.example']!
    expect(await queue('cancel', String(id))).toMatchObject({ code: 2, err: expect.stringContaining('Not confirmed; nothing changed') })
    expect(await stateOf('c@later.example')).toBe('scheduled')
    expect(await queue('cancel', String(id), '--yes')).toMatchObject({ code: 0, out: `Delivery ${id} cancelled` })
    expect(await stateOf('c@later.example')).toBe('cancelled')
    const emailId = (await w.t.app.db.selectFrom('deliveries').select('email_id').where('id', '=', id).executeTakeFirstOrThrow()).email_id
    const email = await emailOf(w, emailId)
    expect(statusesOf(email)).toEqual(['SCHEDULED', 'CANCELLED'])
    expect(email.emailEvents[1].data).toEqual({ recipient: 'c@later.example' })
    expect(await queue('cancel', String(id), '--yes')).toMatchObject({ code: 1, err: expect.stringContaining('is cancelled') })
    expect(await queue('cancel', String(ids['d@example.net']), '--yes')).toMatchObject({ code: 1, err: expect.stringContaining('is delivered') })
    expect(JSON.parse((await queue('stats', '--json')).out).byDomain).toEqual([])
  })
})

describe('mailstead project set-send-rate', () => {
  const rate = async () =>
    (await w.t.app.db.selectFrom('projects').select('send_rate_per_second').where('id', '=', w.projectId).executeTakeFirstOrThrow()).send_rate_per_second

  test('sets the project’s emails per second, and "default" removes it', async () => {
    const id = String(w.projectId)
    expect(await cli(['project', 'set-send-rate', id, '5', ...flags])).toMatchObject({ code: 0, out: `Project ${id} send rate: 5 emails per second` })
    expect(await rate()).toBe(5)
    const json = await cli(['project', 'set-send-rate', id, '7', '--json', ...flags])
    expect(JSON.parse(json.out)).toMatchObject({ id: w.projectId, sendRatePerSecond: 7 })
    expect(await cli(['project', 'set-send-rate', id, 'default', ...flags])).toMatchObject({ code: 0, out: `Project ${id} send rate: server default` })
    expect(await rate()).toBeNull()
  })

  test.each([
    ['no rate', ['1'], 2],
    ['a rate that is not a whole number', ['1', 'fast'], 2],
    ['zero', ['1', '0'], 2],
    ['an unknown project', ['9999', '5'], 1],
  ])('%s is an error', async (_, args, code) => {
    expect((await cli(['project', 'set-send-rate', ...args, ...flags])).code).toBe(code)
  })
})
