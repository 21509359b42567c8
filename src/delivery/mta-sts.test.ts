// @database
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../test/helpers/clock.ts'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { openTestDatabase } from '../../test/helpers/postgres.ts'
import { servePolicy, startPolicyHost, type PolicyHost, type PolicyHostOptions } from '../../test/helpers/mta-sts-host.ts'
import { createTestCa, type TestCa } from '../../test/helpers/test-ca.ts'
import type { Database } from '../db/client.ts'
import { createWriter, type Writer } from '../db/writer.ts'
import { createResolver } from '../dns/resolver.ts'
import { createLogger } from '../lib/logger.ts'
import { trustedCas } from '../lib/outbound/trust.ts'
import { createMtaSts, mxMatches, type MtaStsResult, type MtaStsSettings } from './mta-sts.ts'

const DNS_TIMEOUT_MS = 300
const MINUTE = 60_000

let dns: FakeDns
let ca: TestCa
let database: Database
let writer: Writer
const hosts: PolicyHost[] = []
const logs: Array<{ level: string; tag: string; msg: string }> = []

beforeAll(async () => {
  dns = await new FakeDns().start()
  ca = await createTestCa()
  database = await openTestDatabase()
  writer = createWriter(database.db)
})

afterEach(() => {
  for (const host of hosts.splice(0)) host.close()
})

afterAll(async () => {
  await database.close()
  await dns.stop()
})

const ENFORCE = 'version: STSv1\nmode: enforce\nmx: mx1.example.com\nmx: *.mail.example.com\nmax_age: 86400\n'
const TESTING = 'version: STSv1\r\nmode: testing\r\nmx: mx.example.org\r\nmax_age: 604800\r\n'

/** A policy host for `domain`, its records published under `id` unless told otherwise. */
async function policyHost(domain: string, options: PolicyHostOptions & { id?: string | null; policy?: string } = {}) {
  const host = await startPolicyHost(domain, dns, ca, { respond: servePolicy(options.policy ?? ENFORCE), ...options })
  if (options.id !== null) host.publish(options.id ?? '20260101')
  hosts.push(host)
  return host
}

/** An MTA-STS cache as the server makes it, reaching policy hosts on `port`. */
function mtaSts(port: number, clock: ManualClock, settings: Partial<MtaStsSettings> = {}) {
  return createMtaSts({
    db: database.db,
    write: writer.run,
    resolver: createResolver([{ host: '127.0.0.1', port: dns.port }], DNS_TIMEOUT_MS),
    clock,
    logger: createLogger('debug', (line) => logs.push(JSON.parse(line))),
    settings: { allowPrivate: true, ca: trustedCas([ca.cert]), port, fetchTimeoutMs: 3000, ...settings },
  })
}

const txtQueries = (domain: string) => dns.queries.filter((q) => q.name === `_mta-sts.${domain}` && q.type === 'TXT').length

function policyOf(result: MtaStsResult) {
  if (result.status !== 'policy') throw new Error(`expected a policy, got ${JSON.stringify(result)}`)
  return result.policy
}

describe('discovering and fetching a policy', () => {
  test('a TXT record and a policy: mode, mx patterns, id and max_age; the host is asked by name over TLS, with the configured CA', async () => {
    const clock = new ManualClock()
    const host = await policyHost('enforce.test', { id: 'abc123' })
    const result = await mtaSts(host.port, clock).policyFor('enforce.test')
    expect(result).toEqual({
      status: 'policy',
      policy: {
        domain: 'enforce.test',
        id: 'abc123',
        mode: 'enforce',
        mx: ['mx1.example.com', '*.mail.example.com'],
        maxAge: 86400,
        fetchedAt: clock.now(),
        expiresAt: clock.now() + 86_400_000,
      },
    })
    expect(host.hits).toEqual([{ host: `mta-sts.enforce.test:${host.port}`, path: '/.well-known/mta-sts.txt' }])
    const policy = policyOf(result)
    expect(mxMatches(policy, 'mx1.example.com')).toBe(true)
    expect(mxMatches(policy, 'eu.mail.example.com')).toBe(true)
    expect(mxMatches(policy, 'mx.attacker.test')).toBe(false)
  })

  test('a testing policy, CRLF lines, Content-Type text/plain without a charset', async () => {
    const host = await policyHost('testing.test', { respond: servePolicy(TESTING, 'text/plain') })
    const policy = policyOf(await mtaSts(host.port, new ManualClock()).policyFor('Testing.Test.'))
    expect(policy).toMatchObject({ domain: 'testing.test', mode: 'testing', mx: ['mx.example.org'], maxAge: 604800 })
  })

  test('a domain without an _mta-sts record has none, and nothing is fetched', async () => {
    const host = await policyHost('plain.test', { id: null })
    dns.records('plain.test', { type: 'MX', exchange: 'mx.plain.test', priority: 10 })
    const sts = mtaSts(host.port, new ManualClock())
    expect(await sts.policyFor('plain.test')).toEqual({ status: 'none' })
    expect(await sts.policyFor('nxdomain.test')).toEqual({ status: 'none' })
    expect(host.hits).toHaveLength(0)
  })

  test('TXT records that are not MTA-STS ones are left out', async () => {
    const host = await policyHost('mixed.test', { id: null })
    host.publish(['v=spf1 -all', 'v=STSv1; id=mixed1'])
    expect(policyOf(await mtaSts(host.port, new ManualClock()).policyFor('mixed.test')).id).toBe('mixed1')
  })

  test('an IP literal has no MTA-STS; what is not a domain name is a failure, not a crash', async () => {
    const sts = mtaSts(1, new ManualClock())
    expect(await sts.policyFor('[192.0.2.1]')).toEqual({ status: 'none' })
    expect(await sts.policyFor('not a domain')).toEqual({ status: 'failed', kind: 'dns', reason: '"not a domain" is not a domain name' })
  })

  test('many deliveries at once to one domain: one TXT lookup, one fetch', async () => {
    const host = await policyHost('busy.test')
    const sts = mtaSts(host.port, new ManualClock())
    const results = await Promise.all(Array.from({ length: 25 }, () => sts.policyFor('busy.test')))
    expect(new Set(results.map((r) => policyOf(r).mode))).toEqual(new Set(['enforce']))
    expect(txtQueries('busy.test')).toBe(1)
    expect(host.hits).toHaveLength(1)
  })

  test('a message that comes while the first fetch is under way waits for it', async () => {
    const host = await policyHost('slow.test', { respond: (req, res) => setTimeout(() => servePolicy(ENFORCE)(req, res), 300) })
    const sts = mtaSts(host.port, new ManualClock())
    const first = sts.policyFor('slow.test')
    await Bun.sleep(100)
    expect(policyOf(await sts.policyFor('slow.test')).mode).toBe('enforce')
    expect(policyOf(await first).mode).toBe('enforce')
    expect(host.hits).toHaveLength(1)
  })

  test('the policy host is reached through the configured resolver, and a private address is refused unless allowed', async () => {
    const host = await policyHost('private.test')
    const refused = await mtaSts(host.port, new ManualClock(), { allowPrivate: false }).policyFor('private.test')
    expect(refused).toMatchObject({ status: 'failed', kind: 'fetch' })
    expect((refused as { reason: string }).reason).toBe(
      `https://mta-sts.private.test:${host.port}/.well-known/mta-sts.txt: mta-sts.private.test resolves to 127.0.0.1, a loopback address; set MAILSTEAD_DELIVERY_ALLOW_PRIVATE_TARGETS=true to allow private policy hosts`,
    )
    expect(host.hits).toHaveLength(0)
    expect(dns.queries.some((q) => q.name === 'mta-sts.private.test' && q.type === 'A')).toBe(true)
  })
})

describe('the cache', () => {
  test('the TXT record is read again only after five minutes; the same id fetches nothing', async () => {
    const clock = new ManualClock()
    const host = await policyHost('cache.test')
    const sts = mtaSts(host.port, clock)
    await sts.policyFor('cache.test')
    clock.advance(4 * MINUTE)
    expect(policyOf(await sts.policyFor('cache.test')).mode).toBe('enforce')
    expect(txtQueries('cache.test')).toBe(1)
    clock.advance(MINUTE + 1)
    expect(policyOf(await sts.policyFor('cache.test')).mode).toBe('enforce')
    expect(txtQueries('cache.test')).toBe(2)
    expect(host.hits).toHaveLength(1)
  })

  test('a changed id fetches the policy again', async () => {
    const clock = new ManualClock()
    const host = await policyHost('changed.test', { id: 'one' })
    const sts = mtaSts(host.port, clock)
    expect(policyOf(await sts.policyFor('changed.test'))).toMatchObject({ id: 'one', mode: 'enforce' })
    host.publish('two')
    host.respond = servePolicy(TESTING)
    clock.advance(5 * MINUTE)
    expect(policyOf(await sts.policyFor('changed.test'))).toMatchObject({ id: 'two', mode: 'testing', mx: ['mx.example.org'], fetchedAt: clock.now() })
    expect(host.hits).toHaveLength(2)
  })

  test('a policy with mode none replaces an enforce one: how a domain leaves MTA-STS', async () => {
    const clock = new ManualClock()
    const host = await policyHost('leaving.test', { id: 'on' })
    const sts = mtaSts(host.port, clock)
    await sts.policyFor('leaving.test')
    host.publish('off')
    host.respond = servePolicy('version: STSv1\nmode: none\nmax_age: 86400\n')
    clock.advance(5 * MINUTE)
    expect(policyOf(await sts.policyFor('leaving.test'))).toMatchObject({ id: 'off', mode: 'none', mx: [] })
  })

  test('a failed refresh keeps the cached policy, says why, and is not tried again for five minutes', async () => {
    const clock = new ManualClock()
    const host = await policyHost('flaky.test', { id: 'v1' })
    const sts = mtaSts(host.port, clock, { recheckMs: MINUTE })
    await sts.policyFor('flaky.test')
    host.publish('v2')
    host.respond = (_req, res) => res.writeHead(503).end('down')
    clock.advance(MINUTE)
    const result = await sts.policyFor('flaky.test')
    expect(result).toMatchObject({
      status: 'policy',
      policy: { id: 'v1', mode: 'enforce' },
      refreshFailure: { kind: 'fetch', reason: `https://mta-sts.flaky.test:${host.port}/.well-known/mta-sts.txt: the server answered HTTP 503; a policy needs 200` },
    })
    expect(logs.filter((l) => l.tag === 'MTASTS' && l.level === 'warn' && l.msg.startsWith('flaky.test:'))).toHaveLength(1)
    expect(logs.at(-1)!.msg).toEndWith('; the cached enforce policy (id v1) still applies')
    // The TXT record is read each minute, but the failed id is fetched again only after five.
    for (let minute = 0; minute < 4; minute++) {
      clock.advance(MINUTE)
      expect(await sts.policyFor('flaky.test')).toMatchObject({ status: 'policy', policy: { id: 'v1' }, refreshFailure: { kind: 'fetch' } })
    }
    expect(host.hits).toHaveLength(2)
    host.respond = servePolicy(TESTING)
    clock.advance(MINUTE)
    expect(await sts.policyFor('flaky.test')).toEqual({ status: 'policy', policy: expect.objectContaining({ id: 'v2', mode: 'testing' }) })
    expect(host.hits).toHaveLength(3)
  })

  test('a TXT record that is gone keeps the cached policy until its max_age, then the domain has none', async () => {
    const clock = new ManualClock()
    const host = await policyHost('gone.test', { policy: ENFORCE.replace('86400', '3600') })
    const sts = mtaSts(host.port, clock)
    await sts.policyFor('gone.test')
    dns.zone.delete('_mta-sts.gone.test')
    clock.advance(10 * MINUTE)
    expect(policyOf(await sts.policyFor('gone.test')).mode).toBe('enforce')
    expect(txtQueries('gone.test')).toBe(2)
    clock.advance(50 * MINUTE)
    expect(await sts.policyFor('gone.test')).toEqual({ status: 'none' })
  })

  test('DNS trouble for the TXT record keeps the cached policy', async () => {
    const clock = new ManualClock()
    const host = await policyHost('dnsflap.test')
    const sts = mtaSts(host.port, clock)
    await sts.policyFor('dnsflap.test')
    dns.failing('_mta-sts.dnsflap.test', 'TXT', 'servfail')
    clock.advance(5 * MINUTE)
    expect(await sts.policyFor('dnsflap.test')).toMatchObject({
      status: 'policy',
      policy: { mode: 'enforce' },
      refreshFailure: { kind: 'dns', reason: 'DNS answered SERVFAIL for TXT _mta-sts.dnsflap.test' },
    })
  })

  test('a policy past half its max_age is fetched again, so one in use never lapses', async () => {
    const clock = new ManualClock()
    const host = await policyHost('aging.test', { policy: ENFORCE.replace('86400', '3600') })
    const sts = mtaSts(host.port, clock)
    const first = policyOf(await sts.policyFor('aging.test'))
    clock.advance(25 * MINUTE)
    await sts.policyFor('aging.test')
    expect(host.hits).toHaveLength(1)
    clock.advance(5 * MINUTE)
    const renewed = policyOf(await sts.policyFor('aging.test'))
    expect(host.hits).toHaveLength(2)
    expect(renewed.expiresAt).toBe(first.expiresAt + 30 * MINUTE)
  })

  test('max_age 0 still holds for a minute, not a fetch per message', async () => {
    const clock = new ManualClock()
    const host = await policyHost('zero.test', { policy: ENFORCE.replace('86400', '0') })
    const sts = mtaSts(host.port, clock)
    expect(policyOf(await sts.policyFor('zero.test'))).toMatchObject({ maxAge: 0, expiresAt: clock.now() + MINUTE })
    clock.advance(30_000)
    expect(policyOf(await sts.policyFor('zero.test')).maxAge).toBe(0)
    expect(host.hits).toHaveLength(1)
  })

  test('recheck reads the TXT record at once (before a message is failed for good)', async () => {
    const clock = new ManualClock()
    const host = await policyHost('recheck.test', { id: 'a1' })
    const sts = mtaSts(host.port, clock)
    await sts.policyFor('recheck.test')
    host.publish('a2')
    expect(policyOf(await sts.policyFor('recheck.test')).id).toBe('a1')
    expect(policyOf(await sts.policyFor('recheck.test', { recheck: true })).id).toBe('a2')
  })

  test('an enforce policy survives a restart: the TXT record gone and the policy host down, it still applies', async () => {
    const clock = new ManualClock()
    const host = await policyHost('restart.test', { id: 'r1' })
    await mtaSts(host.port, clock).policyFor('restart.test')
    host.close()
    dns.zone.delete('_mta-sts.restart.test')
    clock.advance(3_600_000)
    const afterRestart = mtaSts(host.port, clock)
    expect(policyOf(await afterRestart.policyFor('restart.test'))).toMatchObject({ id: 'r1', mode: 'enforce', mx: ['mx1.example.com', '*.mail.example.com'] })
  })

  test('after a restart, the same id is not fetched again; an expired policy is not loaded, and prune removes it', async () => {
    const clock = new ManualClock()
    const host = await policyHost('reload.test', { policy: ENFORCE.replace('86400', '7200') })
    await mtaSts(host.port, clock).policyFor('reload.test')
    clock.advance(30 * MINUTE)
    const again = mtaSts(host.port, clock)
    expect(policyOf(await again.policyFor('reload.test')).maxAge).toBe(7200)
    expect(host.hits).toHaveLength(1)
    clock.advance(2 * 3_600_000)
    dns.zone.delete('_mta-sts.reload.test')
    expect(await mtaSts(host.port, clock).policyFor('reload.test')).toEqual({ status: 'none' })
    const rows = () => database.db.selectFrom('mta_sts_policies').select('domain').where('domain', '=', 'reload.test').execute()
    expect(await rows()).toHaveLength(1)
    expect(await again.prune()).toBeGreaterThanOrEqual(1)
    expect(await rows()).toHaveLength(0)
  })
})

describe('bad input: a failure with a clear reason, never a crash', () => {
  /** What a first look at `domain` gives, its policy host set up by `options`. */
  async function firstLook(domain: string, options: Parameters<typeof policyHost>[1] = {}, settings: Partial<MtaStsSettings> = {}) {
    const host = await policyHost(domain, options)
    const result = await mtaSts(host.port, new ManualClock(), settings).policyFor(domain)
    if (result.status !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(result)}`)
    return { ...result, reason: result.reason.replace(`https://mta-sts.${domain}:${host.port}/.well-known/mta-sts.txt: `, '') }
  }

  test('a policy larger than 64 KB', async () => {
    const big = `${ENFORCE}${'comment: padding\n'.repeat(5000)}`
    expect(await firstLook('big.test', { policy: big })).toEqual({ status: 'failed', kind: 'policy', reason: 'the policy is larger than 65536 bytes' })
  })

  test('an endless policy is cut off at 64 KB, before the fetch deadline (which would say "timed out")', async () => {
    const result = await firstLook('endless.test', {
      respond: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        const timer = setInterval(() => res.write('x'.repeat(16 * 1024)), 5)
        res.on('close', () => clearInterval(timer))
      },
    })
    expect(result).toEqual({ status: 'failed', kind: 'policy', reason: 'the policy is larger than 65536 bytes' })
  })

  test('a Content-Type that is not text/plain, or none', async () => {
    expect(await firstLook('html.test', { respond: servePolicy(ENFORCE, 'text/html; charset=utf-8') })).toEqual({
      status: 'failed',
      kind: 'policy',
      reason: 'the Content-Type is "text/html; charset=utf-8"; a policy must be text/plain',
    })
    const bare = await firstLook('untyped.test', { respond: (_req, res) => res.writeHead(200).end(ENFORCE) })
    expect(bare.reason).toBe('no Content-Type; a policy must be text/plain')
  })

  test('a redirect is not followed', async () => {
    const result = await firstLook('moved.test', { respond: (_req, res) => res.writeHead(301, { location: 'https://elsewhere.test/policy.txt' }).end() })
    expect(result).toEqual({
      status: 'failed',
      kind: 'fetch',
      reason: 'the endpoint redirected (301) to https://elsewhere.test/policy.txt; redirects are not followed',
    })
  })

  test('an HTTP error status, and a success that is not 200', async () => {
    expect((await firstLook('missing.test', { respond: (_req, res) => res.writeHead(404).end('not found') })).reason).toBe('the server answered HTTP 404; a policy needs 200')
    expect((await firstLook('broken.test', { respond: (_req, res) => res.writeHead(500).end() })).reason).toBe('the server answered HTTP 500; a policy needs 200')
    expect((await firstLook('empty.test', { respond: (_req, res) => res.writeHead(204).end() })).reason).toBe('the server answered HTTP 204; a policy needs 200')
  })

  test('a self-signed certificate', async () => {
    expect(await firstLook('selfsigned.test', { certificate: 'self-signed' })).toEqual({
      status: 'failed',
      kind: 'certificate',
      reason: 'self signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
    })
  })

  test('a certificate for another name', async () => {
    const result = await firstLook('wrongname.test', { certificate: 'wrong-name' })
    expect(result.kind).toBe('certificate')
    expect(result.reason).toContain("Hostname/IP does not match certificate's altnames: Host: mta-sts.wrongname.test.")
  })

  test('an expired certificate', async () => {
    const result = await firstLook('expired.test', { certificate: 'expired' })
    expect(result).toEqual({ status: 'failed', kind: 'certificate', reason: 'certificate has expired (CERT_HAS_EXPIRED)' })
  })

  test('a certificate from a CA that is not configured', async () => {
    expect(await firstLook('unknownca.test', {}, { ca: undefined })).toEqual({
      status: 'failed',
      kind: 'certificate',
      reason: 'unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    })
  })

  test('a policy host that never answers is cut off at the fetch deadline', async () => {
    const result = await firstLook('hang.test', { respond: () => {} }, { fetchTimeoutMs: 400 })
    expect(result).toEqual({ status: 'failed', kind: 'fetch', reason: 'timed out after 400 ms' })
  })

  test('a policy host without an address', async () => {
    const host = await policyHost('noaddress.test')
    dns.zone.delete('mta-sts.noaddress.test')
    const result = await mtaSts(host.port, new ManualClock()).policyFor('noaddress.test')
    expect(result).toMatchObject({ status: 'failed', kind: 'fetch' })
    expect((result as { reason: string }).reason).toEndWith('mta-sts.noaddress.test has no address (no A or AAAA record)')
  })

  test.each([
    ['version: STSv2\nmode: enforce\nmx: a.example\nmax_age: 60\n', 'line 1: version is "STSv2"; only STSv1 is known'],
    ['version: STSv1\nmode: strict\nmx: a.example\nmax_age: 60\n', 'line 2: mode is "strict"; it must be enforce, testing or none'],
    ['version: STSv1\nmode: enforce\nmx: a.example\nmax_age: 99999999\n', 'line 4: max_age is "99999999"; it must be a whole number of seconds from 0 to 31557600'],
    ['version: STSv1\nmode: enforce\nmax_age: 60\n', 'the policy has no mx field; mode enforce needs at least one'],
    ['<!doctype html><title>Welcome to nginx!</title>', 'line 1 is not "name: value": "<!doctype html><title>Welcome to nginx!</title>"'],
  ])('an invalid policy: %p', async (policy, reason) => {
    const domain = `invalid${reason.length}.test`
    expect(await firstLook(domain, { policy })).toEqual({ status: 'failed', kind: 'policy', reason })
  })

  test('a malformed TXT record: no policy is fetched', async () => {
    const host = await policyHost('badtxt.test', { id: 'v=STSv1; id=not-valid!;' })
    const result = await mtaSts(host.port, new ManualClock()).policyFor('badtxt.test')
    expect(result).toEqual({
      status: 'failed',
      kind: 'record',
      reason: '_mta-sts.badtxt.test: the TXT record is malformed: id "not-valid!" must be 1 to 32 letters and digits',
    })
    expect(host.hits).toHaveLength(0)
  })

  test('two MTA-STS TXT records: no policy is fetched', async () => {
    const host = await policyHost('twotxt.test', { id: ['v=STSv1; id=one;', 'v=STSv1; id=two;'] as never })
    const result = await mtaSts(host.port, new ManualClock()).policyFor('twotxt.test')
    expect(result).toEqual({ status: 'failed', kind: 'record', reason: '_mta-sts.twotxt.test: 2 TXT records start with v=STSv1; RFC 8461 allows exactly one' })
    expect(host.hits).toHaveLength(0)
  })

  test.each([
    ['refused', 'DNS answered REFUSED for TXT _mta-sts.dns-refused.test'],
    ['servfail', 'DNS answered SERVFAIL for TXT _mta-sts.dns-servfail.test'],
    ['malformed', `No DNS server answered TXT _mta-sts.dns-malformed.test within ${DNS_TIMEOUT_MS} ms`],
    ['silent', `No DNS server answered TXT _mta-sts.dns-silent.test within ${DNS_TIMEOUT_MS} ms`],
  ] as const)('DNS %s for the TXT record', async (failure, reason) => {
    const domain = `dns-${failure}.test`
    const host = await policyHost(domain)
    dns.failing(`_mta-sts.${domain}`, 'TXT', failure)
    const clock = new ManualClock()
    const sts = mtaSts(host.port, clock)
    const result = await sts.policyFor(domain)
    expect(result).toMatchObject({ status: 'failed', kind: 'dns' })
    expect((result as { reason: string }).reason).toStartWith(reason)
    expect(host.hits).toHaveLength(0)
    // Tried again after a minute, not at every message.
    const queries = txtQueries(domain)
    await sts.policyFor(domain)
    expect(txtQueries(domain)).toBe(queries)
    clock.advance(MINUTE)
    await sts.policyFor(domain)
    expect(txtQueries(domain)).toBeGreaterThan(queries)
  })

  test('a failed first fetch is remembered: the next messages do not wait for the policy host again', async () => {
    const clock = new ManualClock()
    const host = await policyHost('down.test', { respond: (_req, res) => res.writeHead(502).end() })
    const sts = mtaSts(host.port, clock)
    for (let i = 0; i < 3; i++) expect(await sts.policyFor('down.test')).toMatchObject({ status: 'failed', kind: 'fetch' })
    expect(host.hits).toHaveLength(1)
    host.respond = servePolicy(ENFORCE)
    clock.advance(5 * MINUTE)
    expect(policyOf(await sts.policyFor('down.test')).mode).toBe('enforce')
  })
})
