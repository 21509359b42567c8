import { describe, expect, test } from 'bun:test'
import { DnsUnavailableError, type DnsAnswer } from '../lib/dns.ts'
import { answerOf, judgeBlocklist, judgeHostname, judgePtr, judgePublicIps, judgeSpf, sameIp, type Answer } from './reputation.ts'

const HOST = 'mail.example.com'
const IP = '192.0.2.5'
const values = (...found: string[]): Answer => ({ values: found })
const none: Answer = { none: 'there is no A record' }
const refused: Answer = { failed: 'the DNS server answered REFUSED' }

describe('a DNS answer, as the checks read it', () => {
  const answer = (rcode: string, records: DnsAnswer['answers'] = [], problem?: string): DnsAnswer => ({ rcode, answers: records, authorities: [], ...(problem && { problem }) })
  const ptr = { name: 'x', type: 'PTR' as const, ttl: 1, value: 'Mail.Example.com' }

  test('records of the type asked are values (names lower-cased); NXDOMAIN and an empty answer are none', () => {
    expect(answerOf(answer('NOERROR', [ptr]), 'PTR')).toEqual({ values: ['mail.example.com'] })
    expect(answerOf(answer('NXDOMAIN'), 'PTR')).toEqual({ none: 'the name does not exist (NXDOMAIN)' })
    expect(answerOf(answer('NOERROR', [{ ...ptr, type: 'CNAME' }]), 'PTR')).toEqual({ none: 'there is no PTR record' })
  })

  test('REFUSED, SERVFAIL, a CNAME loop and no answer at all are failures, never none', () => {
    expect(answerOf(answer('REFUSED'), 'A')).toEqual({ failed: 'the DNS server answered REFUSED' })
    expect(answerOf(answer('SERVFAIL', [], 'CNAME loop (a -> b -> a)'), 'A')).toEqual({ failed: 'the DNS server answered CNAME loop (a -> b -> a)' })
    expect(answerOf(new DnsUnavailableError('No DNS server answered A x within 300 ms'), 'A')).toEqual({ failed: 'no DNS server answered A x within 300 ms' })
  })

  test('IPv6 addresses are the same however they are written', () => {
    expect(sameIp('2001:db8::1', '2001:0db8:0:0:0:0:0:1')).toBe(true)
    expect(sameIp('2001:db8::1', '2001:db8::2')).toBe(false)
    expect(sameIp('192.0.2.1', '192.0.2.1')).toBe(true)
    expect(sameIp('192.0.2.1', '::ffff:192.0.2.2')).toBe(false)
  })
})

describe('the public addresses', () => {
  test('none found says so, and how to name them', () => {
    const found = judgePublicIps([], false)
    expect(found.status).toBe('warning')
    expect(found.message).toContain('behind NAT')
    expect(found.fix).toContain('MAILSTEAD_PUBLIC_IPS')
  })

  test('found ones are named with where they came from', () => {
    expect(judgePublicIps([IP], true).message).toBe(`This server sends from ${IP} (MAILSTEAD_PUBLIC_IPS).`)
    expect(judgePublicIps([IP], false).message).toContain("found on the machine's network interfaces")
  })
})

describe('PTR and forward-confirmed reverse DNS', () => {
  const forward = (entries: Record<string, Answer>) => new Map(Object.entries(entries))

  test('a PTR naming the host name, which resolves back, passes both checks', () => {
    const found = judgePtr(IP, values(HOST), forward({ [HOST]: values('198.51.100.1', IP) }), HOST)
    expect(found.map((f) => [f.check, f.status])).toEqual([
      ['ptr', 'ok'],
      ['ptr-hostname', 'ok'],
    ])
  })

  test('no PTR fails, and the name check is not made', () => {
    const found = judgePtr(IP, { none: 'NXDOMAIN' }, forward({}), HOST)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ check: 'ptr', status: 'failed', message: `${IP} has no PTR record (reverse DNS): large providers refuse or junk mail from such addresses.` })
  })

  test('a PTR whose name has no address fails FCrDNS and says so', () => {
    const [ptr] = judgePtr(IP, values('host.provider.test'), forward({ 'host.provider.test': none }), HOST)
    expect(ptr).toMatchObject({ status: 'failed' })
    expect(ptr!.message).toContain('(host.provider.test has no A record)')
    expect(ptr!.fix).toBe(
      `Set the PTR of ${IP} to ${HOST} at your VPS or hosting provider and give ${HOST} an A record for ${IP}; or give host.provider.test an A record for ${IP}.`,
    )
  })

  test('one of several PTR names that resolves back is enough', () => {
    const [ptr, name] = judgePtr(IP, values('a.test', HOST), forward({ 'a.test': values('198.51.100.9'), [HOST]: values(IP) }), HOST)
    expect(ptr).toMatchObject({ status: 'ok', message: `${IP} has the PTR ${HOST}, which resolves back to ${IP}.` })
    expect(name!.status).toBe('ok')
  })

  test('a forward lookup that failed makes FCrDNS unchecked, not failed', () => {
    const [ptr] = judgePtr(IP, values('a.test'), forward({ 'a.test': refused }), HOST)
    expect(ptr).toMatchObject({ status: 'unchecked', message: `Could not confirm the PTR a.test of ${IP}: looking up A a.test failed (the DNS server answered REFUSED).` })
  })

  test('a PTR lookup that failed is one unchecked finding', () => {
    expect(judgePtr(IP, refused, forward({}), HOST)).toEqual([
      { check: 'ptr', subject: IP, status: 'unchecked', message: `Could not look up the PTR record of ${IP}: the DNS server answered REFUSED.` },
    ])
  })

  test('a PTR naming another host is a warning that offers both fixes', () => {
    const [, name] = judgePtr(IP, values('vps1.provider.test'), forward({ 'vps1.provider.test': values(IP) }), HOST)
    expect(name).toMatchObject({ check: 'ptr-hostname', status: 'warning' })
    expect(name!.fix).toBe(`Set the PTR of ${IP} to ${HOST} at your VPS or hosting provider, or set MAILSTEAD_HOSTNAME to vps1.provider.test if that is the server's name.`)
  })

  test('IPv6 is confirmed through AAAA', () => {
    const [ptr] = judgePtr('2001:db8::5', values(HOST), forward({ [HOST]: none }), HOST)
    expect(ptr!.message).toContain(`${HOST} has no AAAA record`)
  })
})

describe('the host name', () => {
  test('resolving to the address passes', () => {
    expect(judgeHostname(HOST, IP, values(IP)).status).toBe('ok')
  })

  test('resolving elsewhere, or not at all, fails and says what it resolves to', () => {
    expect(judgeHostname(HOST, IP, values('198.51.100.1')).message).toBe(`${HOST} (MAILSTEAD_HOSTNAME) does not resolve to ${IP}, an address this server sends from: it resolves to 198.51.100.1.`)
    expect(judgeHostname(HOST, IP, none)).toMatchObject({ status: 'failed', message: expect.stringContaining('it has no A record') })
  })

  test('a failed lookup is unchecked', () => {
    expect(judgeHostname(HOST, '2001:db8::5', refused)).toMatchObject({ status: 'unchecked', message: `Could not look up AAAA ${HOST}: the DNS server answered REFUSED.` })
  })
})

describe('a blocklist', () => {
  test('no entry is a pass', () => {
    expect(judgeBlocklist(IP, 'zen.spamhaus.org', { none: 'NXDOMAIN' })).toEqual({
      check: 'blocklist',
      subject: `zen.spamhaus.org ${IP}`,
      status: 'ok',
      message: `${IP} is not listed on Spamhaus ZEN (zen.spamhaus.org).`,
    })
  })

  test('a listing fails with its meaning and how to be removed', () => {
    const found = judgeBlocklist(IP, 'zen.spamhaus.org', values('127.0.0.10'))
    expect(found.status).toBe('failed')
    expect(found.message).toBe(`${IP} is listed on Spamhaus ZEN (zen.spamhaus.org): PBL: an end-user range, set by its ISP, that should not send mail directly (127.0.0.10).`)
    expect(found.fix).toContain('check.spamhaus.org')
  })

  test('a refused query, a DNS failure and an answer that is no code are unchecked', () => {
    expect(judgeBlocklist(IP, 'zen.spamhaus.org', values('127.255.255.254')).status).toBe('unchecked')
    expect(judgeBlocklist(IP, 'zen.spamhaus.org', refused)).toMatchObject({ status: 'unchecked', message: `Could not check ${IP} on Spamhaus ZEN (zen.spamhaus.org): the DNS server answered REFUSED.` })
    expect(judgeBlocklist(IP, 'dnsbl.example.net', values('127.0.0.1'))).toMatchObject({
      status: 'unchecked',
      message: `dnsbl.example.net answered 127.0.0.1 for ${IP}, which is not a listing code, so it could not be checked.`,
    })
  })

  test('an address the list cannot hold is skipped', () => {
    expect(judgeBlocklist('2001:db8::5', 'bl.spamcop.net', undefined)).toMatchObject({ status: 'skipped', message: 'SpamCop (bl.spamcop.net) lists IPv4 addresses only: 2001:db8::5 was not looked up.' })
  })
})

describe("a sending domain's SPF", () => {
  const spf = (result: string, extra: { comment?: string; record?: string } = {}) => judgeSpf('example.com', 'mst.example.com', IP, HOST, { result, ...extra })

  test('pass is ok', () => {
    expect(spf('pass')).toMatchObject({ check: 'spf', subject: `example.com ${IP}`, status: 'ok', message: `The SPF of mst.example.com (example.com's return path) lets ${IP} send.` })
  })

  test.each(['fail', 'softfail', 'neutral'])('%s fails, naming the record', (result) => {
    expect(spf(result, { record: 'v=spf1 -all' }).message).toBe(`example.com's mail fails SPF: the SPF of mst.example.com gives ${result}, not pass, for ${IP} (v=spf1 -all).`)
  })

  test('no record and a broken record fail', () => {
    expect(spf('none').message).toBe(`example.com's mail fails SPF: mst.example.com has no SPF record, so SPF does not pass for ${IP}.`)
    expect(spf('permerror', { comment: 'mx.test: permanent error in processing during lookup of x: Too many DNS requests', record: 'v=spf1 include:a' }).message).toContain(
      'the SPF record of mst.example.com is broken (v=spf1 include:a)',
    )
  })

  test('a temporary error is unchecked, with its reason', () => {
    expect(spf('temperror', { comment: 'mx.test: error in processing during lookup of bounces@mst.example.com: DNS timeout' })).toMatchObject({
      status: 'unchecked',
      message: `Could not evaluate the SPF of mst.example.com for ${IP}: error in processing during lookup of bounces@mst.example.com: DNS timeout.`,
    })
  })
})
