import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import type { Resolver } from '../lib/dns.ts'
import { hostAddresses } from './host-addresses.ts'
import { createResolver } from './resolver.ts'

let dns: FakeDns

beforeAll(async () => {
  dns = await new FakeDns().start()
  dns
    .records('hooks.example.com', { type: 'AAAA', address: '2606:4700::6810:84e5' }, { type: 'A', address: '93.184.215.14' }, { type: 'A', address: '93.184.215.15' })
    .records('v4.example.com', { type: 'A', address: '93.184.215.16' })
    .records('mail-only.example.com', { type: 'MX', exchange: 'mx.example.com', priority: 10 })
    .set('broken.example.com', { servfail: true })
    .set('silent.example.com', { silent: true })
})

afterAll(() => dns.stop())

const addresses = () => hostAddresses(createResolver([{ host: '127.0.0.1', port: dns.port }], 300))

describe('the addresses of a host', () => {
  test('are its A then its AAAA records, asked of the configured resolver', async () => {
    expect(await addresses()('hooks.example.com')).toEqual(['93.184.215.14', '93.184.215.15', '2606:4700::6810:84e5'])
    expect(dns.queries.filter((q) => q.name === 'hooks.example.com').map((q) => q.type).sort()).toEqual(['A', 'AAAA'])
  })

  test('may be IPv4 only; a trailing dot is the same name', async () => {
    expect(await addresses()('v4.example.com.')).toEqual(['93.184.215.16'])
  })

  test('are none for a name that does not exist or has no address records', async () => {
    expect(await addresses()('nowhere.example.com')).toEqual([])
    expect(await addresses()('mail-only.example.com')).toEqual([])
  })

  test('of an IP literal are the literal itself, without asking DNS', async () => {
    const before = dns.queries.length
    expect(await addresses()('203.0.113.5')).toEqual(['203.0.113.5'])
    expect(await addresses()('[2001:db8::1]')).toEqual(['2001:db8::1'])
    expect(dns.queries.length).toBe(before)
  })

  test('are an error when DNS fails, so that a failure is not taken for "no address"', async () => {
    await expect(addresses()('broken.example.com')).rejects.toThrow('SERVFAIL')
    await expect(addresses()('silent.example.com')).rejects.toThrow('No DNS server answered')
  })

  test('are what one query found when the other failed', async () => {
    const halfBroken: Resolver = {
      async query(name, type) {
        if (type === 'AAAA') return { rcode: 'SERVFAIL', answers: [], authorities: [] }
        return { rcode: 'NOERROR', answers: [{ name, type: 'A', ttl: 60, value: '93.184.215.14' }], authorities: [] }
      },
    }
    expect(await hostAddresses(halfBroken)('hooks.example.com')).toEqual(['93.184.215.14'])
  })
})
