import { expect, test } from 'bun:test'
import { canonicalIp, clientKey } from './ip.ts'

test('canonicalIp writes each address one way', () => {
  expect(canonicalIp('192.0.2.10')).toBe('192.0.2.10')
  expect(canonicalIp(' 2001:DB8:5:0:0:0:0:17 ')).toBe('2001:db8:5::17')
  expect(canonicalIp('2001:0db8::0001')).toBe('2001:db8::1')
  expect(canonicalIp('::ffff:192.0.2.10')).toBe('192.0.2.10')
  expect(canonicalIp('::FFFF:c000:020a')).toBe('192.0.2.10')
})

test('canonicalIp refuses what is not an address', () => {
  for (const text of ['', '192.0.2', '192.0.2.256', '01.2.3.4', '2001:db8::1::2', 'fe80::1%eth0', 'example.com', '192.0.2.10/24']) {
    expect({ text, ip: canonicalIp(text) }).toEqual({ text, ip: undefined })
  }
})

test('clientKey counts IPv6 by its /64 and IPv4 by itself, however each is written', () => {
  expect(clientKey('2001:db8:1:2::1')).toBe(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'))
  expect(clientKey('2001:DB8:1:2:0:0:0:9')).toBe(clientKey('2001:db8:1:2::1'))
  expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'))
  expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
  expect(clientKey('198.51.100.1')).toBe('198.51.100.1')
  expect(clientKey('::ffff:198.51.100.1')).toBe('198.51.100.1')
  expect(clientKey(undefined)).toBe('unknown')
})
