// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeMx } from '../helpers/fake-mx.ts'
import { ManualClock } from '../helpers/clock.ts'
import { createWorld, type World } from '../helpers/world.ts'

const MINUTE = 60_000
const clock = new ManualClock()
let w: World
let flaky: FakeMx
let never: FakeMx

beforeAll(async () => {
  w = await createWorld({ clock })
  flaky = await new FakeMx({ onData: (n) => (n === 1 ? { code: 451, message: '4.3.0 Try again later' } : undefined) }).start('127.0.0.3', w.port)
  never = await new FakeMx({ onRcpt: () => ({ code: 450, message: '4.2.1 Mailbox busy' }) }).start('127.0.0.4', w.port)
  w.dns.records('flaky.example', { type: 'MX', exchange: 'mx.flaky.example', priority: 10 }).records('mx.flaky.example', { type: 'A', address: '127.0.0.3' })
  w.dns.records('never.example', { type: 'MX', exchange: 'mx.never.example', priority: 10 }).records('mx.never.example', { type: 'A', address: '127.0.0.4' })
})

afterAll(async () => {
  await flaky.stop()
  await never.stop()
  await w.close()
})

const send = async (to: string) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', html: '<p>Hello</p>' } })).body.emailId as string
const eventsOf = async (id: string) => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body.emailEvents as any[]
const deliveryOf = (id: string) => w.t.app.db.selectFrom('deliveries').selectAll().where('email_id', '=', id).executeTakeFirstOrThrow()

describe('retries', () => {
  test('a temporary refusal is retried after a minute with the same bytes, then delivered', async () => {
    const id = await send('jane@flaky.example')
    await w.deliver()
    const delayed = (await eventsOf(id)).at(-1)
    expect(delayed).toMatchObject({ status: 'DELIVERY_DELAYED', data: { smtpCode: 451, enhancedCode: '4.3.0', attempt: 1, nextAttemptAt: new Date(clock.now() + MINUTE).toISOString() } })
    clock.advance(59_000)
    await w.deliver()
    expect(flaky.received).toHaveLength(0)
    clock.advance(1000)
    await w.deliver()
    expect((await eventsOf(id)).map((e) => e.status)).toEqual(['QUEUED', 'SENT', 'DELIVERY_DELAYED', 'DELIVERED'])
    expect((await eventsOf(id)).at(-1).data.attempt).toBe(2)
    expect(flaky.offered).toHaveLength(2)
    expect(flaky.offered[1]!.raw.equals(flaky.offered[0]!.raw)).toBe(true)
  })

  test('retries follow the schedule and bounce as expired after three days', async () => {
    const id = await send('jane@never.example')
    const created = clock.now()
    const attemptsAt: number[] = []
    for (let guard = 0; guard < 40; guard++) {
      await w.deliver()
      const delivery = await deliveryOf(id)
      if (delivery.state !== 'deferred') break
      attemptsAt.push((delivery.next_attempt_at - created) / MINUTE)
      clock.advance(delivery.next_attempt_at - clock.now())
    }
    expect(attemptsAt.slice(0, 9)).toEqual([1, 6, 21, 51, 111, 231, 471, 951, 1431])
    const delivery = await deliveryOf(id)
    expect(delivery.state).toBe('bounced')
    expect((await eventsOf(id)).at(-1)).toMatchObject({ status: 'BOUNCED', data: { category: 'expired', hard: false } })
    expect(clock.now() - created).toBeLessThanOrEqual(72 * 60 * MINUTE)
    const suppressed = await w.t.request('GET', '/api/v1/suppressions', { key: w.key })
    expect(suppressed.body.data.map((s: any) => s.email)).not.toContain('jane@never.example')
  })
})

describe('limits', () => {
  test("a project's send rate holds: a full bucket, then one email per 1/rate second", async () => {
    const other = await w.t.project('Rated')
    await w.t.app.db.updateTable('projects').set({ send_rate_per_second: 2 }).where('id', '=', other.id).execute()
    const domain = await w.t.request('POST', '/api/v1/domains', { key: other.secretKey, body: { name: 'rated.example.com', region: 'us-east-1' } })
    const { publishRecords } = await import('../helpers/domains.ts')
    publishRecords(w.dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const sent = await w.t.request('POST', '/api/v1/emails', { key: other.secretKey, body: { from: 'a@rated.example.com', to: `rated${i}@example.net`, subject: 'x', text: 'y' } })
      ids.push(sent.body.emailId)
    }
    const delivered = async () => (await w.t.app.db.selectFrom('deliveries').select('id').where('project_id', '=', other.id).where('state', '=', 'delivered').execute()).length
    await w.deliver()
    expect(await delivered()).toBe(2)
    clock.advance(500)
    await w.deliver()
    expect(await delivered()).toBe(3)
    clock.advance(1000)
    await w.deliver()
    expect(await delivered()).toBe(5)
  })
})

describe('the smarthost', () => {
  test('sends everything through one relay, with AUTH, whatever the recipient domain', async () => {
    const logins: string[] = []
    const relay = new FakeMx()
    const { SMTPServer } = await import('smtp-server')
    const server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, callback) => {
        logins.push(`${auth.username}:${auth.password}`)
        callback(auth.password === 's3cret' ? null : new Error('bad'), { user: auth.username })
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          relay.received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks), secure: false })
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.server.address() as { port: number }).port
    const relayed = await createWorld({ settings: { smarthost: `smtp://relay-user:s3cret@127.0.0.1:${port}` } })
    try {
      const sent = await relayed.t.request('POST', '/api/v1/emails', {
        key: relayed.key,
        body: { from: 'ada@sender.example.com', to: ['a@nowhere-in-dns.example', 'b@example.net'], subject: 'Relayed', text: 'hi' },
      })
      await relayed.deliver()
      expect(logins[0]).toBe('relay-user:s3cret')
      expect(relay.received.flatMap((m) => m.to).sort()).toEqual(['a@nowhere-in-dns.example', 'b@example.net'])
      expect(relayed.mx.received).toHaveLength(0)
      const events = (await relayed.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: relayed.key })).body.emailEvents
      expect(events.filter((e: any) => e.status === 'DELIVERED')).toHaveLength(2)
      expect(await relayed.dkim(relay.received[0]!.raw)).toContainEqual({ status: 'pass', domain: 'sender.example.com', algorithm: 'rsa-sha256' })
    } finally {
      await relayed.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
