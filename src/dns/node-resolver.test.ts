import { describe, expect, test } from 'bun:test'
import { DnsUnavailableError, type DnsAnswer, type DnsRecord } from '../lib/dns.ts'
import { nodeStyleResolver } from './node-resolver.ts'

const answer = (rcode: string, answers: DnsRecord[] = []): DnsAnswer => ({ rcode, answers, authorities: [] })
const resolverFor = (reply: DnsAnswer | Error) => nodeStyleResolver(async () => (reply instanceof Error ? Promise.reject(reply) : reply))
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error) => error.code)

describe('our resolver in the shape of node:dns resolve()', () => {
  test('answers values: TXT as arrays of strings, MX as exchange and priority', async () => {
    const txt = answer('NOERROR', [{ name: 'x', type: 'TXT', ttl: 1, value: 'v=spf1 -all' }])
    expect(await resolverFor(txt)('x', 'TXT')).toEqual([['v=spf1 -all']])
    const mx = answer('NOERROR', [{ name: 'x', type: 'MX', ttl: 1, value: 'mx.test', priority: 5 }])
    expect(await resolverFor(mx)('x', 'MX')).toEqual([{ exchange: 'mx.test', priority: 5 }])
  })

  test('no answer is ENOTFOUND or ENODATA; a server that would not answer is EREFUSED, ESERVFAIL or ETIMEOUT', async () => {
    expect(await codeOf(resolverFor(answer('NXDOMAIN'))('x', 'A'))).toBe('ENOTFOUND')
    expect(await codeOf(resolverFor(answer('NOERROR'))('x', 'A'))).toBe('ENODATA')
    expect(await codeOf(resolverFor(answer('REFUSED'))('x', 'A'))).toBe('EREFUSED')
    expect(await codeOf(resolverFor(answer('SERVFAIL'))('x', 'A'))).toBe('ESERVFAIL')
    expect(await codeOf(resolverFor(answer('NOTIMP'))('x', 'A'))).toBe('ESERVFAIL')
    expect(await codeOf(resolverFor(new DnsUnavailableError('nobody'))('x', 'A'))).toBe('ETIMEOUT')
    expect(await codeOf(resolverFor(answer('NOERROR'))('x', 'SPF'))).toBe('ENODATA')
  })
})
