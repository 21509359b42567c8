// @database-incidental: the delivery's SMTP and DNS with remote peers; the queue's rows are tested on both databases elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createLogger } from '../../src/lib/logger.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let refusing: FakeMx
const logged: any[] = []

beforeAll(async () => {
  w = await createWorld({ logger: createLogger('info', (line) => logged.push(JSON.parse(line))) })
  refusing = await new FakeMx({ onConnect: () => ({ code: 421, message: '4.7.0 try later' }) }).start('127.0.0.12', w.port)
})

afterAll(async () => {
  await refusing.stop()
  await w.close()
})

const send = async (to: string) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hello' } })).body.emailId as string
const eventsOf = async (id: string) => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body.emailEvents as any[]
const last = async (id: string) => (await eventsOf(id)).at(-1)

/** A domain whose one MX host has an A record for the fake MX of example.net. */
const mxDomain = (domain: string) => {
  w.dns.records(domain, { type: 'MX', exchange: `mx.${domain}`, priority: 10 })
  w.dns.records(`mx.${domain}`, { type: 'A', address: '127.0.0.2' })
  return `mx.${domain}`
}

describe('A and AAAA are looked up independently', () => {
  test.each(['refused', 'servfail', 'silent'] as const)('an MX host whose AAAA query is %s gets its mail at its A address, at the first attempt', async (failure) => {
    const host = mxDomain(`aaaa-${failure}.example`)
    w.dns.failing(host, 'AAAA', failure)
    const id = await send(`jane@aaaa-${failure}.example`)
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { mx: host, ip: '127.0.0.2', attempt: 1 } })
    // Each family was asked once: a silent AAAA cost one timeout, and was not asked again.
    expect(w.dns.queries.filter((q) => q.name === host).map((q) => q.type).sort()).toEqual(['A', 'AAAA'])
  })

  test('a failed AAAA lookup is remembered for a while: the next message does not wait for it again', async () => {
    const host = mxDomain('aaaa-once.example')
    w.dns.failing(host, 'AAAA', 'silent')
    await send('first@aaaa-once.example')
    await w.deliver()
    const id = await send('second@aaaa-once.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED' })
    // The second message did not ask (and so did not wait) again.
    expect(w.dns.queries.filter((q) => q.name === host && q.type === 'AAAA')).toHaveLength(1)
  })

  test('an MX host whose A query fails and whose AAAA answers gets its mail at the IPv6 address', async () => {
    const v6 = await new FakeMx().start('::1', w.port)
    try {
      w.dns.records('v6-only.example', { type: 'MX', exchange: 'mx.v6-only.example', priority: 10 })
      w.dns.records('mx.v6-only.example', { type: 'AAAA', address: '::1' }).failing('mx.v6-only.example', 'A', 'refused')
      const id = await send('jane@v6-only.example')
      await w.deliver()
      expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { ip: '::1' } })
      expect(v6.received.at(-1)!.to).toEqual(['jane@v6-only.example'])
    } finally {
      await v6.stop()
    }
  })
})

describe('a deferral says what happened to each MX host and address', () => {
  test('in its event and its log line: a DNS failure, a refused connection, a refused greeting', async () => {
    w.dns.records('trace.example', { type: 'MX', exchange: 'mx1.trace.example', priority: 10 }, { type: 'MX', exchange: 'mx2.trace.example', priority: 20 })
    w.dns.records('mx1.trace.example', { type: 'A', address: '127.0.0.11' }).failing('mx1.trace.example', 'AAAA', 'refused')
    w.dns.records('mx2.trace.example', { type: 'A', address: '127.0.0.12' })
    const id = await send('jane@trace.example')
    await w.deliver()
    const expected = `mx1.trace.example AAAA REFUSED; 127.0.0.11:${w.port} connection refused; mx2.trace.example 127.0.0.12:${w.port} 421 4.7.0 try later`
    expect(await last(id)).toMatchObject({ status: 'DELIVERY_DELAYED', data: { category: 'network', response: expected } })
    const line = logged.find((l) => l.tag === 'DEFERRED[network]' && l.msg === 'jane@trace.example')
    expect(line.response).toBe(expected)
  })

  test('a temporary refusal of the message itself comes after the hosts tried before it', async () => {
    const greylisting = await new FakeMx({ onRcpt: () => ({ code: 451, message: '4.7.1 Greylisted, try again later' }) }).start('127.0.0.13', w.port)
    try {
      w.dns.records('grey.example', { type: 'MX', exchange: 'mx1.grey.example', priority: 10 }, { type: 'MX', exchange: 'mx2.grey.example', priority: 20 })
      w.dns.records('mx1.grey.example').failing('mx1.grey.example', 'A', 'servfail').failing('mx1.grey.example', 'AAAA', 'servfail')
      w.dns.records('mx2.grey.example', { type: 'A', address: '127.0.0.13' })
      const id = await send('jane@grey.example')
      await w.deliver()
      expect((await last(id)).data.response).toBe(
        `mx1.grey.example AAAA SERVFAIL; mx1.grey.example A SERVFAIL; mx2.grey.example 127.0.0.13:${w.port} 451 4.7.1 Greylisted, try again later`,
      )
    } finally {
      await greylisting.stop()
    }
  })

  test('at most 5 MX hosts and 10 addresses are tried in one attempt', async () => {
    const hosts = Array.from({ length: 7 }, (_, i) => `mx${i + 1}.many.example`)
    w.dns.records('many.example', ...hosts.map((host, i) => ({ type: 'MX' as const, exchange: host, priority: i + 1 })))
    hosts.forEach((host, i) => w.dns.records(host, { type: 'A', address: `127.0.1.${2 * i + 1}` }, { type: 'A', address: `127.0.1.${2 * i + 2}` }))
    const id = await send('jane@many.example')
    await w.deliver()
    const response: string = (await last(id)).data.response
    expect(response.match(/connection refused/g)).toHaveLength(10)
    expect(response).toContain('mx5.many.example')
    const asked = new Set(w.dns.queries.map((q) => q.name))
    expect(asked.has('mx5.many.example')).toBe(true)
    expect(asked.has('mx6.many.example') || asked.has('mx7.many.example')).toBe(false)
  })
})

describe('DNS answers that make no sense are a clear reason to wait, never a bounce', () => {
  test.each([
    ['malformed', 'no answer'],
    ['truncated', 'no answer'],
    ['silent', 'no answer'],
  ] as const)('an MX answer that is %s defers, saying so', async (failure, words) => {
    w.dns.records(`${failure}.example`).failing(`${failure}.example`, 'MX', failure)
    const id = await send(`jane@${failure}.example`)
    await w.deliver()
    const event = await last(id)
    expect(event).toMatchObject({ status: 'DELIVERY_DELAYED', data: { category: 'dns' } })
    expect(event.data.response).toStartWith(`${failure}.example MX ${words}`)
  })

  test('an answer of another type than the one asked for is no address: the other family carries the mail', async () => {
    const host = mxDomain('wrong-type.example')
    w.dns.failing(host, 'AAAA', 'wrong-type')
    const id = await send('jane@wrong-type.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { ip: '127.0.0.2', attempt: 1 } })
  })

  test('an MX host behind a CNAME loop defers, naming the loop', async () => {
    w.dns.records('loop.example', { type: 'MX', exchange: 'mx.loop.example', priority: 10 })
    w.dns.records('mx.loop.example', { type: 'CNAME', domain: 'mx2.loop.example' })
    w.dns.records('mx2.loop.example', { type: 'CNAME', domain: 'mx.loop.example' })
    const id = await send('jane@loop.example')
    await w.deliver()
    expect((await last(id)).data.response).toContain('mx.loop.example A CNAME loop (mx.loop.example -> mx2.loop.example -> mx.loop.example)')
  })

  test('an MX host reached through a CNAME gets its mail', async () => {
    w.dns.records('alias.example', { type: 'MX', exchange: 'mail.alias.example', priority: 10 })
    w.dns.records('mail.alias.example', { type: 'CNAME', domain: 'mx.example.net' })
    const id = await send('jane@alias.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { ip: '127.0.0.2' } })
  })

  test('a domain whose MX query fails and whose address lookups fail is not taken for one without mail', async () => {
    w.dns.records('nomx.example').failing('nomx.example', 'A', 'refused').failing('nomx.example', 'AAAA', 'refused')
    const id = await send('jane@nomx.example')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERY_DELAYED', data: { category: 'dns' } })
  })
})

describe('an MX that points somewhere it must not', () => {
  let strict: World
  beforeAll(async () => {
    strict = await createWorld({ settings: { 'delivery-allow-private-targets': 'false' } })
    strict.dns.records('private.example', { type: 'MX', exchange: 'mx.private.example', priority: 10 })
    strict.dns.records('mx.private.example', { type: 'A', address: '10.1.2.3' }, { type: 'A', address: '127.0.0.2' })
    strict.dns.records('localhost.example', { type: 'MX', exchange: 'localhost', priority: 10 })
    strict.dns.records('localhost', { type: 'A', address: '127.0.0.1' }, { type: 'AAAA', address: '::1' })
    strict.dns.records('literal.example', { type: 'MX', exchange: '192.0.2.1', priority: 10 })
  })
  afterAll(() => strict.close())

  const sendFrom = async (world: World, to: string) =>
    (await world.t.request('POST', '/api/v1/emails', { key: world.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hello' } })).body.emailId as string
  const lastOf = async (world: World, id: string) => (await world.t.request('GET', `/api/v1/emails/${id}`, { key: world.key })).body.emailEvents.at(-1)

  test.each([
    ['jane@private.example', `mx.private.example 10.1.2.3:PORT skipped: a private address (MAILSTEAD_DELIVERY_ALLOW_PRIVATE_TARGETS is off); 127.0.0.2:PORT skipped: a loopback address`],
    ['jane@localhost.example', 'localhost [::1]:PORT skipped: a loopback address'],
    ['jane@literal.example', '192.0.2.1 is an address, not a host name (RFC 5321 5.1): skipped'],
  ])('%s is deferred with the reason, and nothing is sent there', async (to, reason) => {
    const id = await sendFrom(strict, to)
    await strict.deliver()
    const event = await lastOf(strict, id)
    expect(event).toMatchObject({ status: 'DELIVERY_DELAYED', data: { attempt: 1 } })
    expect(event.data.response).toContain(reason.replaceAll('PORT', String(strict.port)))
    expect(strict.mx.received.filter((m) => m.to.includes(to))).toHaveLength(0)
  })
})

describe('a host without an IPv6 route', () => {
  /** `unshare -n` gives a network namespace with loopback alone: no IPv6 route, as on many VPSs. */
  const isolated = Bun.spawnSync(['unshare', '-n', 'ip', 'link', 'set', 'lo', 'up'], { stderr: 'pipe' })
  const why = isolated.exitCode === 0 ? '' : ` (skipped: cannot make a network namespace here: ${isolated.stderr.toString().trim() || 'unshare failed'})`

  test.skipIf(isolated.exitCode !== 0)(`skips IPv6 addresses at once for the next address${why}`, () => {
    const script = new URL('../helpers/no-ipv6-route.ts', import.meta.url).pathname
    // On SQLite always: PostgreSQL is on the loopback of the namespace left behind, out of reach.
    const env = { ...process.env, MAILSTEAD_TEST_DATABASE: 'sqlite' }
    const run = Bun.spawnSync(['unshare', '-n', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" "${script}"`], { stderr: 'pipe', env })
    expect(run.exitCode).toBe(0)
    const [first, second, closed] = JSON.parse(run.stdout.toString().trim().split('\n').at(-1)!)
    expect(first.events.at(-1)).toMatchObject({ status: 'DELIVERED', data: { ip: '127.0.0.2', attempt: 1 } })
    expect(second.events.at(-1)).toMatchObject({ status: 'DELIVERED', data: { ip: '127.0.0.2', attempt: 1 } })
    // Neither waited for a connection to the IPv6 address to fail: that would take the world's
    // 5-second attempt timeout.
    expect(first.ms).toBeLessThan(4000)
    expect(second.ms).toBeLessThan(4000)
    expect(closed.events.at(-1).data.response).toMatch(/^mx\.closed\.example \[2001:db8::26\]:\d+ skipped: this host has no IPv6 route; 127\.0\.0\.99:\d+ connection refused$/)
  })
})

describe('MAILSTEAD_DELIVERY_IP_FAMILY', () => {
  const worlds: World[] = []
  let v6: FakeMx
  beforeAll(async () => {
    v6 = await new FakeMx().start('::1', w.port)
  })
  afterAll(async () => {
    for (const world of worlds) await world.close()
    await v6.stop()
  })

  /** A world whose example.net MX has an IPv6 address (the fake MX on ::1) besides its IPv4 one. */
  async function dualStack(family: string) {
    const world = await createWorld({ settings: { 'delivery-ip-family': family } })
    worlds.push(world)
    world.dns.records('mx.example.net', { type: 'A', address: '127.0.0.2' }, { type: 'AAAA', address: '::1' })
    await v6.stop()
    v6 = await new FakeMx().start('::1', world.port)
    const sent = await world.t.request('POST', '/api/v1/emails', { key: world.key, body: { from: 'ada@sender.example.com', to: 'jane@example.net', subject: 'Hi', text: 'Hello' } })
    await world.deliver()
    const email = await world.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: world.key })
    return { world, delivered: email.body.emailEvents.at(-1), asked: world.dns.queries.filter((q) => q.name === 'mx.example.net').map((q) => q.type) }
  }

  test.each([
    ['any', '::1', ['A', 'AAAA']],
    ['ipv4', '127.0.0.2', ['A']],
    ['ipv6', '::1', ['AAAA']],
  ])('%s: the message goes to %s, and DNS is asked for %o', async (family, ip, types) => {
    const { delivered, asked } = await dualStack(family)
    expect(delivered).toMatchObject({ status: 'DELIVERED', data: { ip } })
    expect([...new Set(asked)].sort()).toEqual(types)
  })
})
