import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { DnsUnavailableError } from '../lib/dns.ts'
import { createResolver } from './resolver.ts'

let dns: FakeDns

beforeAll(async () => {
  dns = await new FakeDns().start()
  dns
    .records('example.com', { type: 'MX', exchange: 'mx2.example.com', priority: 20 }, { type: 'MX', exchange: 'MX1.Example.com', priority: 10 })
    .records('split.example.com', { type: 'TXT', data: ['v=DKIM1; k=rsa; ', 'p=abc', 'def'] })
    .records('big.example.com', { type: 'TXT', data: ['a'.repeat(255), 'b'.repeat(255), 'c'.repeat(255)] })
    .set('broken.example.com', { servfail: true })
    .set('silent.example.com', { silent: true })
})

afterAll(() => dns.stop())

const resolver = () => createResolver([{ host: '127.0.0.1', port: dns.port }], 300)

describe('the resolver', () => {
  test('answers MX records with their preference, host names lower-cased', async () => {
    const answer = await resolver().query('example.com', 'MX')
    expect(answer.rcode).toBe('NOERROR')
    expect(answer.answers.map((r) => [r.value, r.priority])).toEqual([
      ['mx2.example.com', 20],
      ['mx1.example.com', 10],
    ])
  })

  test('joins a TXT record split into several strings', async () => {
    const answer = await resolver().query('split.example.com', 'TXT')
    expect(answer.answers[0]!.value).toBe('v=DKIM1; k=rsa; p=abcdef')
  })

  test('asks again over TCP when the UDP answer is truncated', async () => {
    const before = dns.tcpConnections
    const answer = await resolver().query('big.example.com', 'TXT')
    expect(dns.tcpConnections).toBe(before + 1)
    expect(answer.answers[0]!.value).toBe('a'.repeat(255) + 'b'.repeat(255) + 'c'.repeat(255))
  })

  test('reports NXDOMAIN and SERVFAIL as answers', async () => {
    expect((await resolver().query('nowhere.example.com', 'A')).rcode).toBe('NXDOMAIN')
    expect((await resolver().query('broken.example.com', 'A')).rcode).toBe('SERVFAIL')
  })

  test('gives up on a server that does not answer, within the timeout', async () => {
    const started = performance.now()
    await expect(resolver().query('silent.example.com', 'A')).rejects.toBeInstanceOf(DnsUnavailableError)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test('tries the next server when one does not answer', async () => {
    const twoServers = createResolver([{ host: '127.0.0.1', port: 9 }, { host: '127.0.0.1', port: dns.port }], 300)
    expect((await twoServers.query('example.com', 'MX')).answers).toHaveLength(2)
  })
})
