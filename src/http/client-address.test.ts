import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../config/load.ts'
import { clientKey } from '../lib/ip.ts'
import { clientAddress, trustedProxies } from './client-address.ts'

/** A request as Bun's server would hand it: from `peer`, with these headers. */
const from = (peer: string, forwardedFor?: string) => {
  const request = new Request('http://localhost/', { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } })
  return [request, { requestIP: () => ({ address: peer }) }] as const
}
const proxies = trustedProxies(['127.0.0.1', '10.0.0.0/8', '::1'])

describe('the client address', () => {
  test.each([
    ['an untrusted peer, whatever it forwards', '203.0.113.5', '198.51.100.1', '203.0.113.5'],
    ['a trusted peer without the header', '127.0.0.1', undefined, '127.0.0.1'],
    ['a trusted peer: the address it added', '127.0.0.1', '6.6.6.6, 198.51.100.1', '198.51.100.1'],
    ['a chain of trusted proxies: the first address from the right that is none of them', '127.0.0.1', '6.6.6.6, 198.51.100.1, 10.1.2.3', '198.51.100.1'],
    ['a garbled hop stops the walk at what the proxies vouch for', '127.0.0.1', '198.51.100.1, not-an-ip, 10.1.2.3', '10.1.2.3'],
    ['an IPv4-mapped peer is its IPv4 address', '::ffff:203.0.113.9', '198.51.100.1', '203.0.113.9'],
    ['IPv6 through a trusted IPv6 proxy', '::1', '2001:DB8::7', '2001:db8::7'],
  ])('%s', (_, peer, forwardedFor, expected) => {
    const [request, server] = from(peer, forwardedFor)
    expect(clientAddress(request, server, proxies)).toBe(expected)
  })

  test('is unknown without a socket, and every such request counts as one address', () => {
    expect(clientAddress(new Request('http://localhost/'), null, proxies)).toBeUndefined()
    expect(clientKey(undefined)).toBe('unknown')
  })

  test.each([
    ['none', []],
    ['127.0.0.1, ::1', ['127.0.0.1', '::1']],
    ['10.0.0.0/8,2001:DB8::/32', ['10.0.0.0/8', '2001:db8::/32']],
  ])('the trusted-proxies setting %p is read as %p', (text, expected) => {
    expect(loadConfig({ env: { MAILSTEAD_TRUSTED_PROXIES: text }, flags: { 'data-dir': '/tmp/x', secret: 'x'.repeat(32) } }).config.trustedProxies).toEqual(expected)
  })

  test.each(['10.0.0.0/33', '10.0.0.0/8/8', 'proxy.example.com', '::1/129', '10.0.0.0/-1'])('the trusted-proxies setting %p is refused', (text) => {
    expect(() => loadConfig({ env: { MAILSTEAD_TRUSTED_PROXIES: text }, flags: { 'data-dir': '/tmp/x', secret: 'x'.repeat(32) } })).toThrow('MAILSTEAD_TRUSTED_PROXIES')
  })
})
