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
    .set('refused.example.com', { refused: true })
    .records('alias.example.com', { type: 'CNAME', domain: 'target.example.com' })
    .records('target.example.com', { type: 'A', address: '192.0.2.7' })
    .records('loop1.example.com', { type: 'CNAME', domain: 'loop2.example.com' })
    .records('loop2.example.com', { type: 'CNAME', domain: 'loop1.example.com' })
    .records('7.2.0.192.in-addr.arpa', { type: 'PTR', domain: 'mail.example.com.' })
    .records('mixed.example.com', { type: 'A', address: '192.0.2.8' })
    .failing('mixed.example.com', 'AAAA', 'malformed')
    .failing('mixed.example.com', 'MX', 'truncated')
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

  test('follows a CNAME to the records it names, the chain kept in the answer', async () => {
    const answer = await resolver().query('alias.example.com', 'A')
    expect(answer.answers.map((r) => [r.type, r.value])).toEqual([
      ['CNAME', 'target.example.com'],
      ['A', '192.0.2.7'],
    ])
  })

  test('a CNAME loop is a failure that names the loop, not an empty answer', async () => {
    const answer = await resolver().query('loop1.example.com', 'A')
    expect(answer.rcode).toBe('SERVFAIL')
    expect(answer.problem).toBe('CNAME loop (loop1.example.com -> loop2.example.com -> loop1.example.com)')
  })

  test('answers PTR records as host names', async () => {
    expect((await resolver().query('7.2.0.192.in-addr.arpa', 'PTR')).answers[0]).toMatchObject({ type: 'PTR', value: 'mail.example.com' })
  })

  test('reports REFUSED as an answer', async () => {
    expect((await resolver().query('refused.example.com', 'A')).rcode).toBe('REFUSED')
  })

  test('a malformed answer, or a truncated one whose TCP retry breaks off, is no answer; other types of the name still answer', async () => {
    await expect(resolver().query('mixed.example.com', 'AAAA')).rejects.toBeInstanceOf(DnsUnavailableError)
    await expect(resolver().query('mixed.example.com', 'MX')).rejects.toThrow('TCP')
    expect((await resolver().query('mixed.example.com', 'A')).answers[0]!.value).toBe('192.0.2.8')
  })
})
