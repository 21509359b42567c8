// @database-incidental: the delivery's SMTP and DNS with remote peers; the queue's rows are tested on both databases elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeMx, startBrokenMx } from '../helpers/fake-mx.ts'
import { until } from '../helpers/until.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let backup: FakeMx
let slow: FakeMx
const broken: Array<{ stop(): Promise<void> }> = []

beforeAll(async () => {
  w = await createWorld()
  backup = await new FakeMx().start('127.0.0.4', w.port)
  slow = await new FakeMx({ delayMs: 600 }).start('127.0.0.9', w.port)
  broken.push(await startBrokenMx('drop', '127.0.0.3', w.port))
  broken.push(await startBrokenMx('stall', '127.0.0.5', w.port))
  broken.push(await startBrokenMx('garbage', '127.0.0.6', w.port))
  broken.push(await startBrokenMx('endless', '127.0.0.7', w.port))
  const mxAt = (domain: string, ...hosts: Array<[string, number, string]>) => {
    w.dns.records(domain, ...hosts.map(([host, priority]) => ({ type: 'MX' as const, exchange: host, priority })))
    for (const [host, , address] of hosts) w.dns.records(host, { type: 'A', address })
  }
  mxAt('failover.example', ['mx1.failover.example', 10, '127.0.0.3'], ['mx2.failover.example', 20, '127.0.0.4'])
  mxAt('stall.example', ['mx.stall.example', 10, '127.0.0.5'])
  mxAt('garbage.example', ['mx.garbage.example', 10, '127.0.0.6'])
  mxAt('endless.example', ['mx.endless.example', 10, '127.0.0.7'])
  mxAt('slow.example', ['mx.slow.example', 10, '127.0.0.9'])
  w.dns.records('a-only.example', { type: 'A', address: '127.0.0.4' })
  w.dns.records('nullmx.example', { type: 'MX', exchange: '', priority: 0 })
  w.dns.set('servfail.example', { servfail: true })
})

afterAll(async () => {
  for (const b of broken) await b.stop()
  await backup.stop()
  await slow.stop()
  await w.close()
})

const send = async (to: string) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hello' } })).body.emailId as string
const eventsOf = async (id: string) => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body.emailEvents as any[]
const last = async (id: string) => (await eventsOf(id)).at(-1)

describe('routing', () => {
  test('MX hosts are tried in preference order; a dropped connection moves on to the next within the attempt', async () => {
    const id = await send('jane@failover.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { mx: 'mx2.failover.example', attempt: 1 } })
    expect(backup.received.at(-1)!.to).toEqual(['jane@failover.example'])
  })

  test('a domain without MX gets its mail at its address record', async () => {
    const id = await send('jane@a-only.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { mx: 'a-only.example' } })
  })

  test.each([
    ['jane@nullmx.example', 'null-mx'],
    ['jane@no-such-domain.example', 'domain'],
  ])('%s bounces at once (%s) and is suppressed', async (to, category) => {
    const id = await send(to)
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'BOUNCED', data: { category, hard: true, attempt: 1 } })
    const events = await eventsOf(id)
    expect(events.map((e) => e.status)).not.toContain('SENT')
  })

  test('a DNS failure defers the delivery', async () => {
    const id = await send('jane@servfail.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERY_DELAYED', data: { category: 'dns' } })
  })
})

describe('remote servers that misbehave cost one attempt and nothing else', () => {
  test.each([
    ['stalls', 'jane@stall.example'],
    ['answers garbage', 'jane@garbage.example'],
    ['sends an endless line', 'jane@endless.example'],
  ])('a server that %s: the delivery is deferred, and other mail flows meanwhile', async (_, to) => {
    const started = performance.now()
    const stuck = await send(to)
    const fine = await send('meanwhile@example.net')
    await w.deliver()
    expect(await last(stuck)).toMatchObject({ status: 'DELIVERY_DELAYED', data: { category: 'network', attempt: 1 } })
    expect(await last(fine)).toMatchObject({ status: 'DELIVERED' })
    expect(performance.now() - started).toBeLessThan(8000)
    const delivery = await w.t.app.db.selectFrom('deliveries').selectAll().where('email_id', '=', stuck).executeTakeFirstOrThrow()
    expect(delivery).toMatchObject({ state: 'deferred', attempts: 1 })
    expect(delivery.next_attempt_at - Date.now()).toBeGreaterThan(50_000)
  })

  test('SENT is recorded by the first attempt that reaches a server, not by one that reached none', async () => {
    w.dns.records('later.example', { type: 'MX', exchange: 'mx.later.example', priority: 10 }).records('mx.later.example', { type: 'A', address: '127.0.0.8' })
    const down = await startBrokenMx('drop', '127.0.0.8', w.port)
    const id = await send('late@later.example')
    await w.deliver()
    await down.stop()
    const up = await new FakeMx().start('127.0.0.8', w.port)
    await w.t.app.db.updateTable('deliveries').set({ next_attempt_at: 0 }).where('email_id', '=', id).execute()
    await w.deliver()
    await up.stop()
    const events = await eventsOf(id)
    expect(events.map((e) => e.status)).toEqual(['QUEUED', 'DELIVERY_DELAYED', 'SENT', 'DELIVERED'])
    expect(events[2].data).toMatchObject({ mx: 'mx.later.example', attempt: 2 })
  })

  test('a backlog for one destination keeps flowing as attempts finish, without waiting for the poll', async () => {
    const batch = Array.from({ length: 40 }, (_, i) => ({ from: 'ada@sender.example.com', to: `backlog${i}@example.net`, subject: 'Hi', text: 'Hello' }))
    const answer = await w.t.request('POST', '/api/v1/emails/batch', { key: w.key, body: batch })
    const ids: string[] = answer.body.data.map((d: { emailId: string }) => d.emailId)
    const started = performance.now()
    const delivered = async () =>
      (await w.t.app.db.selectFrom('deliveries').select('id').where('email_id', 'in', ids).where('state', '=', 'delivered').execute()).length
    expect(await until(delivered, (n) => n === 40, 5000, 20)).toBe(40)
    expect(performance.now() - started).toBeLessThan(1500)
  })

  test('no more than 5 attempts at once go to one destination, and others are not held up', async () => {
    const slowIds = await Promise.all(Array.from({ length: 12 }, (_, i) => send(`r${i}@slow.example`)))
    const started = performance.now()
    const quick = await send('quick@example.net')
    const draining = w.deliver()
    expect((await until(() => last(quick), (event) => event.status === 'DELIVERED', 5000, 20)).status).toBe('DELIVERED')
    expect(performance.now() - started).toBeLessThan(1000)
    await draining
    expect(slow.maxConnections).toBeLessThanOrEqual(5)
    expect(slow.received).toHaveLength(12)
    for (const id of slowIds) expect((await last(id)).status).toBe('DELIVERED')
  })
})
