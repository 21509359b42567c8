// @database
import { afterAll, beforeAll, describe, expect, jest, test } from 'bun:test'
import { reverseName } from '../../src/dns/blocklists.ts'
import { MIGRATIONS } from '../../migrations/index.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { migrate } from '../../src/db/migrator.ts'
import { writeTransaction } from '../../src/db/transaction.ts'
import { createDomainChecker } from '../../src/workers/domain-checker.ts'
import { createResolver } from '../../src/dns/resolver.ts'
import { createServerChecks, runSelfChecks, type SelfCheckSettings } from '../../src/dns/self-checks.ts'
import { claimRun } from '../../src/dns/server-checks.repository.ts'
import type { Finding } from '../../src/lib/findings.ts'
import { silentLogger } from '../../src/lib/logger.ts'
import { createRegistry } from '../../src/lib/metrics.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'
import { Holdings } from '../../src/db/claims.ts'

const HOST = 'mx.mailstead.test'
const GOOD_V4 = '203.0.113.5'
const GOOD_V6 = '2001:db8::5'
const LISTS = ['zen.spamhaus.org', 'b.barracudacentral.org', 'bl.spamcop.net']
const reversed4 = (ip: string) => ip.split('.').reverse().join('.')
const clock = new ManualClock()

let dns: FakeDns
let t: TestApp
let key: string
let domainName: string

/** Publishes `ptr` as the PTR of `ip`. */
const ptrFor = (ip: string, ptr: string) => dns.records(reverseName(ip), { type: 'PTR', domain: `${ptr}.` })

beforeAll(async () => {
  dns = await new FakeDns().start()
  dns.records(HOST, { type: 'A', address: GOOD_V4 }, { type: 'AAAA', address: GOOD_V6 })
  ptrFor(GOOD_V4, HOST)
  ptrFor(GOOD_V6, HOST)
  t = await createTestApp(
    { 'dns-servers': dns.address, 'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS), hostname: HOST, 'public-ips': `${GOOD_V4},${GOOD_V6}` },
    { clock },
  )
  key = (await t.project()).secretKey
  const domain = (await t.request('POST', '/api/v1/domains', { key, body: { name: 'sender.example.com', region: 'us-east-1' } })).body
  publishRecords(dns, domain.dnsRecords)
  await t.app.checker.check(domain.id)
  domainName = domain.name
})

afterAll(async () => {
  await t.close()
  await dns.stop()
})

const settings = (ips: string[], hostname = HOST): SelfCheckSettings => ({ hostname, publicIps: ips, blocklists: LISTS, smarthost: null })
const run = (ips: string[], options: { server?: FakeDns; hostname?: string } = {}) =>
  runSelfChecks({
    db: t.app.db,
    resolver: createResolver([{ host: '127.0.0.1', port: (options.server ?? dns).port }], 300),
    settings: settings(ips, options.hostname),
  })
const of = (findings: Finding[], check: string, subject?: string) =>
  findings.filter((f) => f.check === check && (subject === undefined || f.subject.includes(subject)))
const one = (findings: Finding[], check: string, subject?: string) => {
  const found = of(findings, check, subject)
  expect(found).toHaveLength(1)
  return found[0]!
}

describe("the server's reputation self-checks", () => {
  test('a good setup passes every check, IPv4 and IPv6; lists without IPv6 are skipped for it', async () => {
    const { ips, findings } = await run([GOOD_V4, GOOD_V6])
    expect(ips).toEqual([GOOD_V4, GOOD_V6])
    const notOk = findings.filter((f) => f.status !== 'ok')
    expect(notOk.map((f) => [f.status, f.subject])).toEqual([
      ['skipped', `b.barracudacentral.org ${GOOD_V6}`],
      ['skipped', `bl.spamcop.net ${GOOD_V6}`],
    ])
    expect(one(findings, 'ptr', GOOD_V4).message).toBe(`${GOOD_V4} has the PTR ${HOST}, which resolves back to ${GOOD_V4}.`)
    expect(one(findings, 'hostname', GOOD_V6).message).toBe(`${HOST} resolves to ${GOOD_V6}.`)
    expect(one(findings, 'blocklist', `zen.spamhaus.org ${GOOD_V6}`).message).toBe(`${GOOD_V6} is not listed on Spamhaus ZEN (zen.spamhaus.org).`)
    expect(of(findings, 'spf').map((f) => f.message)).toEqual([
      `The SPF of mst.${domainName} (${domainName}'s return path) lets ${GOOD_V4} send.`,
      `The SPF of mst.${domainName} (${domainName}'s return path) lets ${GOOD_V6} send.`,
    ])
    // IPv6 blocklist names are the address's 32 nibbles, reversed.
    expect(dns.queries.map((q) => q.name)).toContain(`5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.zen.spamhaus.org`)
  })

  test('an address without a PTR fails, with where to set one', async () => {
    const ip = '203.0.113.10'
    const ptr = one((await run([ip])).findings, 'ptr')
    expect(ptr).toMatchObject({ status: 'failed', message: `${ip} has no PTR record (reverse DNS): large providers refuse or junk mail from such addresses.` })
    expect(ptr.fix).toContain(`Set the reverse DNS (PTR) of ${ip} to ${HOST}`)
  })

  test('a PTR that does not resolve back to the address fails FCrDNS', async () => {
    const ip = '203.0.113.11'
    ptrFor(ip, 'host11.provider.test')
    dns.records('host11.provider.test', { type: 'A', address: '198.51.100.11' })
    const ptr = one((await run([ip])).findings, 'ptr')
    expect(ptr.status).toBe('failed')
    expect(ptr.message).toBe(
      `The PTR of ${ip} does not resolve back to it (host11.provider.test resolves to 198.51.100.11): forward-confirmed reverse DNS fails, and receivers distrust the address.`,
    )
  })

  test('a PTR naming another host that does resolve back is a warning: the EHLO name differs', async () => {
    const ip = '203.0.113.12'
    ptrFor(ip, 'vps-12.provider.test')
    dns.records('vps-12.provider.test', { type: 'A', address: ip })
    const { findings } = await run([ip])
    expect(one(findings, 'ptr').status).toBe('ok')
    expect(one(findings, 'ptr-hostname')).toMatchObject({
      status: 'warning',
      message: `The PTR of ${ip} is vps-12.provider.test, not ${HOST}, the name this server gives in EHLO (MAILSTEAD_HOSTNAME).`,
    })
  })

  test('a host name that resolves elsewhere fails, and SPF (a:host) fails with it', async () => {
    const ip = '203.0.113.13'
    ptrFor(ip, HOST)
    const { findings } = await run([ip])
    expect(one(findings, 'hostname')).toMatchObject({
      status: 'failed',
      message: `${HOST} (MAILSTEAD_HOSTNAME) does not resolve to ${ip}, an address this server sends from: it resolves to ${GOOD_V4}.`,
    })
    expect(one(findings, 'ptr').message).toContain(`does not resolve back to it (${HOST} resolves to ${GOOD_V4})`)
    const spf = one(findings, 'spf')
    expect(spf.status).toBe('failed')
    expect(spf.message).toBe(`${domainName}'s mail fails SPF: the SPF of mst.${domainName} gives softfail, not pass, for ${ip} (v=spf1 a:${HOST} ~all).`)
    expect(spf.fix).toContain(`ip4:${ip}`)
  })

  test('a host name without AAAA fails for an IPv6 address, and says how to send over IPv4 only', async () => {
    const hostname = 'v4only.mailstead.test'
    const ip = '2001:db8::14'
    dns.records(hostname, { type: 'A', address: GOOD_V4 })
    const found = one((await run([ip], { hostname })).findings, 'hostname')
    expect(found.message).toBe(`${hostname} (MAILSTEAD_HOSTNAME) does not resolve to ${ip}, an address this server sends from: it has no AAAA record.`)
    expect(found.fix).toContain('MAILSTEAD_DELIVERY_IP_FAMILY=ipv4')
  })

  test('an address on Spamhaus ZEN as XBL fails, decoded, with where to ask for removal', async () => {
    const ip = '203.0.113.15'
    dns.records(`${reversed4(ip)}.zen.spamhaus.org`, { type: 'A', address: '127.0.0.4' })
    const listed = one((await run([ip])).findings, 'blocklist', 'zen.spamhaus.org')
    expect(listed).toMatchObject({
      status: 'failed',
      message: `${ip} is listed on Spamhaus ZEN (zen.spamhaus.org): XBL: an exploited or infected machine (a bot, an open proxy, a hacked server) (127.0.0.4).`,
    })
    expect(listed.fix).toContain('https://check.spamhaus.org')
  })

  test('a list that refuses the query (127.255.255.254) could not be checked: not listed, not clean', async () => {
    const ip = '203.0.113.16'
    dns.records(`${reversed4(ip)}.zen.spamhaus.org`, { type: 'A', address: '127.255.255.254' })
    const refused = one((await run([ip])).findings, 'blocklist', 'zen.spamhaus.org')
    expect(refused).toMatchObject({
      status: 'unchecked',
      message: `Spamhaus ZEN (zen.spamhaus.org) refused to answer for ${ip} (127.255.255.254: queries through public or open resolvers are refused), so it could not be checked.`,
    })
    expect(refused.fix).toContain('MAILSTEAD_DNS_SERVERS')
  })

  test('a code a list does not document is shown raw; Barracuda and SpamCop 127.0.0.2 are listings', async () => {
    const ip = '203.0.113.17'
    dns.records(`${reversed4(ip)}.zen.spamhaus.org`, { type: 'A', address: '127.0.0.42' })
    dns.records(`${reversed4(ip)}.b.barracudacentral.org`, { type: 'A', address: '127.0.0.2' })
    dns.records(`${reversed4(ip)}.bl.spamcop.net`, { type: 'A', address: '127.0.0.2' })
    const lists = of((await run([ip])).findings, 'blocklist')
    expect(lists.map((f) => [f.status, f.message])).toEqual([
      ['failed', `${ip} is listed on Spamhaus ZEN (zen.spamhaus.org): code 127.0.0.42.`],
      ['failed', `${ip} is listed on Barracuda (b.barracudacentral.org): listed on the Barracuda Reputation Block List (127.0.0.2).`],
      ['failed', `${ip} is listed on SpamCop (bl.spamcop.net): reported as a source of spam by SpamCop users (127.0.0.2).`],
    ])
  })

  test('SPF that does not cover the address fails, and names the record', async () => {
    const ip = '203.0.113.18'
    const other = await t.request('POST', '/api/v1/domains', { key, body: { name: 'strict.example.com', region: 'us-east-1' } })
    publishRecords(dns, other.body.dnsRecords)
    await t.app.checker.check(other.body.id)
    // Verified, then the record changed: the domain stays SUCCESS until its next check.
    dns.records('mst.strict.example.com', { type: 'TXT', data: 'v=spf1 ip4:198.51.100.0/24 -all' }, { type: 'MX', exchange: HOST, priority: 10 })
    const spf = one((await run([ip])).findings, 'spf', 'strict.example.com')
    publishRecords(dns, other.body.dnsRecords)
    expect(spf).toMatchObject({
      status: 'failed',
      message: `strict.example.com's mail fails SPF: the SPF of mst.strict.example.com gives fail, not pass, for ${ip} (v=spf1 ip4:198.51.100.0/24 -all).`,
    })
  })

  test('no public address (behind NAT) says so and how to fix it', async () => {
    const { ips, findings } = await runSelfChecks({
      db: t.app.db,
      resolver: createResolver([{ host: '127.0.0.1', port: dns.port }], 300),
      settings: { hostname: HOST, publicIps: null, blocklists: LISTS, smarthost: null },
      interfaces: () => ({ lo: [{ address: '127.0.0.1', internal: true, family: 'IPv4' } as never], eth0: [{ address: '10.0.0.5', internal: false, family: 'IPv4' } as never] }),
    })
    expect(ips).toEqual([])
    expect(findings).toEqual([
      {
        check: 'public-ips',
        subject: 'this server',
        status: 'warning',
        message: "No public IP address was found on this machine's network interfaces (it may be behind NAT), so the PTR, blocklist and SPF checks could not run.",
        fix: 'Set MAILSTEAD_PUBLIC_IPS to the public addresses this server sends from, comma-separated.',
      },
    ])
  })
})

describe('when DNS fails, every check says it could not be made: never a pass, never a failure', () => {
  const ip = '203.0.113.20'
  const names = [reverseName(ip), HOST, `mst.${'sender.example.com'}`, 'mst.strict.example.com', ...LISTS.map((zone) => `${reversed4(ip)}.${zone}`)]

  test.each([
    ['REFUSED', { refused: true } as const, 'the DNS server answered REFUSED'],
    ['SERVFAIL', { servfail: true } as const, 'the DNS server answered SERVFAIL'],
    ['nothing', { silent: true } as const, 'no DNS server answered'],
  ])('DNS that answers %s', async (_, behaviour, why) => {
    const failing = await new FakeDns().start()
    try {
      for (const name of names) failing.set(name, behaviour)
      const started = performance.now()
      const { findings } = await run([ip], { server: failing })
      expect(performance.now() - started).toBeLessThan(3000)
      const checks = findings.filter((f) => f.check !== 'public-ips')
      expect(checks.length).toBeGreaterThanOrEqual(7)
      for (const f of checks) expect({ check: f.check, subject: f.subject, status: f.status }).toEqual({ check: f.check, subject: f.subject, status: 'unchecked' })
      expect(one(findings, 'ptr').message).toStartWith(`Could not look up the PTR record of ${ip}: ${why}`)
      expect(one(findings, 'blocklist', 'zen').message).toStartWith(`Could not check ${ip} on Spamhaus ZEN (zen.spamhaus.org): ${why}`)
      expect(one(findings, 'spf', 'sender.example.com').message).toStartWith(`Could not evaluate the SPF of mst.sender.example.com for ${ip}:`)
    } finally {
      await failing.stop()
    }
  })
})

describe('the stored report', () => {
  test('is made at most hourly, and not while another process makes one', async () => {
    const checks = t.app.serverChecks
    const first = await checks.runIfDue()
    expect(first?.checkedAt).toBe(clock.now())
    expect(await checks.runIfDue()).toBeUndefined()
    clock.advance(59 * 60_000)
    expect(await checks.runIfDue()).toBeUndefined()
    clock.advance(60_000)
    // Another process on the same database has just begun a run: this one leaves it be.
    expect(await t.app.writer.run((trx) => claimRun(trx, 'reputation', clock.now(), 3_600_000, 600_000))).toBe(true)
    expect(await checks.runIfDue()).toBeUndefined()
    // ... unless that run is so old that its process must have died.
    clock.advance(10 * 60_000)
    expect((await checks.runIfDue())?.checkedAt).toBe(clock.now())
  })

  test('a report made under other settings is due at once, however new', async () => {
    const under = (ips: string[]) =>
      createServerChecks({
        db: t.app.db,
        write: t.app.writer.run,
        resolver: createResolver([{ host: '127.0.0.1', port: dns.port }], 300),
        clock,
        logger: silentLogger,
        settings: settings(ips),
      })
    clock.advance(60_000)
    expect((await under([GOOD_V4]).runIfDue())?.ips).toEqual([GOOD_V4])
    expect(await under([GOOD_V4]).runIfDue()).toBeUndefined()
    // The server's own settings again: its next tick puts its own report back.
    expect((await t.app.serverChecks.runIfDue())?.ips).toEqual([GOOD_V4, GOOD_V6])
  })

  test('the DNS checker asks for them seconds after its start, then on each tick (they decide whether they are due)', async () => {
    const database = openSqlite(':memory:')
    await migrate(database.db, MIGRATIONS)
    let asked = 0
    const checker = createDomainChecker({
      db: database.db,
      write: (work) => writeTransaction(database.db, work),
      resolver: createResolver([{ host: '127.0.0.1', port: dns.port }], 300),
      clock,
      logger: silentLogger,
      settings: { secret: 'test-secret-test-secret-test-secret', hostname: HOST, returnPathLabel: 'mst', regions: [], graceMs: 1, pendingCheckMs: 1, verifiedCheckMs: 1 },
      metrics: createRegistry(),
      server: { runIfDue: async () => asked++ },
      claimant: { owner: 'a test', leaseMs: 30_000, write: (work) => writeTransaction(database.db, work), held: new Holdings() },
    })
    const settle = async () => {
      for (let i = 0; i < 10; i++) await Promise.resolve()
    }
    jest.useFakeTimers()
    try {
      await checker.start()
      jest.advanceTimersByTime(4_999)
      expect(asked).toBe(0)
      jest.advanceTimersByTime(1)
      await settle()
      expect(asked).toBe(1)
      jest.advanceTimersByTime(30_000)
      await settle()
      expect(asked).toBe(2)
      await checker.stop()
      jest.advanceTimersByTime(60_000)
      expect(asked).toBe(2)
    } finally {
      jest.useRealTimers()
      await database.close()
    }
  })

  test('/health shows what needs attention as warnings, and stays ok', async () => {
    dns.records(`${reversed4(GOOD_V4)}.zen.spamhaus.org`, { type: 'A', address: '127.0.0.4' })
    try {
      await t.app.serverChecks.run()
      const { status, body } = await t.request('GET', '/health')
      expect(status).toBe(200)
      expect(body.status).toBe('ok')
      expect(body.warnings).toEqual([
        `${GOOD_V4} is listed on Spamhaus ZEN (zen.spamhaus.org): XBL: an exploited or infected machine (a bot, an open proxy, a hacked server) (127.0.0.4).`,
      ])
    } finally {
      dns.zone.delete(`${reversed4(GOOD_V4)}.zen.spamhaus.org`)
    }
    await t.app.serverChecks.run()
    expect((await t.request('GET', '/health')).body.warnings).toEqual([])
  })

  test('GET /api/v1/server/checks answers the whole report to a key, and nothing without one', async () => {
    expect((await t.request('GET', '/api/v1/server/checks')).status).toBe(401)
    const { status, body } = await t.request('GET', '/api/v1/server/checks', { key })
    expect(status).toBe(200)
    expect(body.checkedAt).toBe(new Date(clock.now()).toISOString())
    expect(body.hostname).toBe(HOST)
    expect(body.ips).toEqual([GOOD_V4, GOOD_V6])
    expect(body.findings[0]).toEqual({
      check: 'public-ips',
      subject: `${GOOD_V4}, ${GOOD_V6}`,
      status: 'ok',
      message: `This server sends from ${GOOD_V4}, ${GOOD_V6} (MAILSTEAD_PUBLIC_IPS).`,
    })
    expect(body.findings.filter((f: Finding) => f.status === 'failed')).toEqual([])
  })
})

describe("what the self-checks say of a project's domains", () => {
  test('is told to that project alone: /health counts SPF failures, another project sees none of them', async () => {
    const spfRecord = dns.zone.get(`mst.${domainName}`)
    dns.records(`mst.${domainName}`, { type: 'TXT', data: 'v=spf1 ip4:198.51.100.0/24 -all' }, { type: 'MX', exchange: HOST, priority: 10 })
    try {
      await t.app.serverChecks.run()
      const warnings: string[] = (await t.request('GET', '/health')).body.warnings
      expect(warnings.join(' ')).not.toContain(domainName)
      expect(warnings.at(-1)).toBe('2 SPF checks need attention: "mailstead doctor" or GET /api/v1/server/checks names the domains.')
      const own = (await t.request('GET', '/api/v1/server/checks', { key })).body.findings.filter((f: Finding) => f.check === 'spf')
      expect(own.filter((f: Finding) => f.subject.startsWith(`${domainName} `)).map((f: Finding) => f.status)).toEqual(['failed', 'failed'])
      const other = await t.project('Another')
      const theirs = (await t.request('GET', '/api/v1/server/checks', { key: other.secretKey })).body.findings
      expect(theirs.filter((f: Finding) => f.check === 'spf')).toEqual([])
      expect(theirs.some((f: Finding) => f.check === 'ptr')).toBe(true)
    } finally {
      if (spfRecord) dns.set(`mst.${domainName}`, spfRecord)
      await t.app.serverChecks.run()
    }
  })
})
