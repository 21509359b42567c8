// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { claimDue } from '../../src/core/queue/index.ts'
import { ManualClock } from '../helpers/clock.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { until } from '../helpers/cluster.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * The heartbeat of a process's claims (src/cluster/claim-keeper.ts) renews the rows its loops
 * hold, and only those. A claim that committed but whose answer never reached the process (its
 * connection cut as it committed: PostgreSQL restarting) took rows no loop holds; they must come
 * back once their lease runs out, not be renewed for as long as the process lives.
 */

const LEASE_MS = 30_000
const clock = new ManualClock()
let w: World
let slow: FakeMx

beforeAll(async () => {
  w = await createWorld({ clock, settings: { 'lease-seconds': String(LEASE_MS / 1000), 'smtp-timeout-seconds': '10' } })
  slow = await new FakeMx({ delayMs: 1500 }).start('127.0.0.5', w.port)
  w.dns.records('slow.example', { type: 'MX', exchange: 'mx.slow.example', priority: 10 }).records('mx.slow.example', { type: 'A', address: '127.0.0.5' })
})

afterAll(async () => {
  await slow.stop()
  await w.close()
})

const send = async (to: string) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', html: '<p>Hello</p>' } })).body.emailId as string
const deliveryOf = (id: string) => w.t.app.db.selectFrom('deliveries').selectAll().where('email_id', '=', id).executeTakeFirstOrThrow()

test('a delivery in flight longer than a lease stays with its process: renewed, sent once', async () => {
  const id = await send('jane@slow.example')
  const delivering = w.deliver()
  await until(() => deliveryOf(id), (row) => row.state === 'sending' && slow.connections > 0)
  clock.advance(LEASE_MS + 1000)
  await w.t.app.claims.keep()
  expect(await deliveryOf(id)).toMatchObject({ state: 'sending', claimed_by: w.t.app.leaseOwner, lease_until: clock.now() + LEASE_MS })
  await delivering
  expect(await deliveryOf(id)).toMatchObject({ state: 'delivered', claimed_by: null })
  expect(slow.received).toHaveLength(1)
})

test('rows a claim took whose answer was lost are not renewed: their lease runs out and they are sent', async () => {
  // The loop is stopped meanwhile: the send wakes it once committed, and it would take the row first.
  await w.t.app.deliveries.stop()
  const id = await send('lost@example.net')
  // The claim commits under this process's name, and its answer goes nowhere: no loop holds the row.
  const owner = { owner: w.t.app.leaseOwner, leaseMs: LEASE_MS }
  const taken = await w.t.app.writer.run((trx) => claimDue(trx, owner, clock.now(), 10, 10, { domains: [], projects: [] }))
  expect(taken.map((row) => row.email_id)).toContain(id)
  await w.t.app.deliveries.start()
  const leasedUntil = clock.now() + LEASE_MS
  await w.t.app.claims.keep()
  expect(await deliveryOf(id)).toMatchObject({ state: 'sending', claimed_by: w.t.app.leaseOwner, lease_until: leasedUntil })
  await w.deliver()
  expect(w.mx.received.filter((m) => m.to.includes('lost@example.net'))).toHaveLength(0)
  clock.advance(LEASE_MS)
  await w.t.app.claims.keep()
  expect(await deliveryOf(id)).toMatchObject({ state: 'queued', claimed_by: null, lease_until: null })
  await w.deliver()
  expect(await deliveryOf(id)).toMatchObject({ state: 'delivered', claimed_by: null })
  expect(w.mx.received.filter((m) => m.to.includes('lost@example.net'))).toHaveLength(1)
})
