import { describe, expect, test } from 'bun:test'
import { BlockList } from 'node:net'
import { addressRefusal } from './addresses.ts'

/** The refused ranges written out again, for node's BlockList to judge as a second opinion. */
const REFUSED_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/3',
]
const REFUSED_V6_IN_GLOBAL_UNICAST = ['2001::/23', '2001:db8::/32', '3fff::/20']

function blockList(ranges: string[], type: 'ipv4' | 'ipv6') {
  const list = new BlockList()
  for (const range of ranges) {
    const [network, bits] = range.split('/')
    list.addSubnet(network!, Number(bits), type)
  }
  return list
}

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
}

describe('address ranges', () => {
  test('agree with node BlockList on 20000 IPv4 addresses, and on their IPv4-mapped IPv6 forms', () => {
    const oracle = blockList(REFUSED_V4, 'ipv4')
    const next = random(42)
    for (let i = 0; i < 20_000; i++) {
      const value = Math.floor(next() * 2 ** 32)
      const dotted = [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.')
      const hex = `::ffff:${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
      const expected = oracle.check(dotted, 'ipv4')
      expect([dotted, addressRefusal(dotted) !== undefined]).toEqual([dotted, expected])
      expect([hex, addressRefusal(hex) !== undefined]).toEqual([hex, expected])
      expect(addressRefusal(`::ffff:${dotted}`) !== undefined).toBe(expected)
    }
  })

  test('agree with node BlockList on 20000 IPv6 addresses of global unicast space', () => {
    const oracle = blockList(REFUSED_V6_IN_GLOBAL_UNICAST, 'ipv6')
    const next = random(7)
    for (let i = 0; i < 20_000; i++) {
      const groups = Array.from({ length: 8 }, () => Math.floor(next() * 0x10000))
      // Into 2000::/3, and half the time into 2001::/16 so the narrow ranges get hits.
      groups[0] = next() < 0.5 ? 0x2001 : 0x2000 | (groups[0]! & 0x1fff)
      if (groups[0] === 0x2002) continue
      const address = groups.map((g) => g.toString(16)).join(':')
      expect([address, addressRefusal(address) !== undefined]).toEqual([address, oracle.check(address, 'ipv6')])
    }
  })

  test('every IPv6 address outside 2000::/3 is refused', () => {
    for (const address of ['::2', '1::', '1fff:ffff::', '4000::', '8000::1', 'e000::', 'fbff::1', 'ffff::']) {
      expect([address, addressRefusal(address)]).not.toEqual([address, undefined])
    }
  })

  test('read compressed, expanded, bracketed, zoned and upper-case IPv6 forms alike', () => {
    for (const address of ['::1', '0:0:0:0:0:0:0:1', '[::1]', '::0:1', '0000:0000:0000:0000:0000:0000:0000:0001']) {
      expect(addressRefusal(address)).toBe('a loopback address')
    }
    expect(addressRefusal('FE80::1%eth0')).toBe('a link-local address')
    expect(addressRefusal('2606:4700:4700::1111')).toBeUndefined()
  })

  test('something that is not an address is an error, never taken for public', () => {
    expect(() => addressRefusal('example.com')).toThrow('is not an IP address')
    expect(() => addressRefusal('127.0.0.1.5')).toThrow('is not an IP address')
  })
})
