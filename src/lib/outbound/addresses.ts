import { isIPv4, isIPv6 } from 'node:net'
import ipaddr from 'ipaddr.js'

/*
 * Which addresses an outbound call must not reach unless private targets are allowed: anything
 * that is not a public unicast address on the internet. The ranges are ipaddr.js's tables of the
 * IANA IPv4 and IPv6 special-purpose address registries (RFC 6890 and its updates), read through
 * `range()`; this file only says which of its range names are refused, and in what words.
 */

type IPv4 = ipaddr.IPv4
type IPv6 = ipaddr.IPv6

const cidr = (text: string) => ipaddr.parseCIDR(text) as [IPv4, number] | [IPv6, number]
const within = (address: IPv4 | IPv6, ranges: ReadonlyArray<ReturnType<typeof cidr>>) =>
  ranges.some((range) => address.kind() === range[0].kind() && address.match(range))

/** ipaddr.js's IPv4 range names, and what each refused one is called. as112 and amt are public anycast services. */
const IPV4_KINDS: Record<string, string | undefined> = {
  unicast: undefined,
  as112: undefined,
  amt: undefined,
  unspecified: 'a "this network" address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  // Cloud metadata services (169.254.169.254) live here: the classic SSRF prize.
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved address',
}

/** Finer words for parts of ipaddr.js's "reserved" ranges. */
const RESERVED_WORDS: ReadonlyArray<readonly [ReturnType<typeof cidr>[], string]> = [
  [['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'].map(cidr), 'a documentation address'],
  [['192.0.0.0/24', '2001::/23'].map(cidr), 'a reserved address (IETF protocol assignments)'],
  [['192.88.99.0/24'].map(cidr), 'a reserved address (6to4 relay anycast)'],
  [['198.18.0.0/15'].map(cidr), 'a reserved address (benchmarking)'],
]

/** ipaddr.js's IPv6 range names that are refused whatever else holds, and what they are called. */
const IPV6_KINDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  uniqueLocal: 'a private address (unique local)',
  deprecatedSiteLocal: 'a private address (site-local)',
  discard: 'a reserved address (discard-only)',
}

/** IPv6 ranges that carry an IPv4 address: judged by the address inside. */
const NAT64 = [cidr('64:ff9b::/96')]
/** Only 2000::/3 is allocated for global unicast; the rest (IPv4-compatible ::a.b.c.d included) is not a place to call. */
const GLOBAL_UNICAST = [cidr('2000::/3')]
/** The IETF's own assignments: Teredo, ORCHID, AMT, benchmarking and the rest, none a host to call. */
const IETF_ASSIGNMENTS = [cidr('2001::/23')]

/**
 * What kind of address `address` is when an outbound call must not go there ("a loopback
 * address"), or undefined for a public one. `address` must be an IPv4 or IPv6 address, in the
 * strict forms node:net accepts (never ipaddr.js's octal or hexadecimal IPv4 forms).
 */
export function addressRefusal(address: string): string | undefined {
  if (isIPv4(address)) return ipv4Refusal(ipaddr.IPv4.parse(address))
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (!isIPv6(bare)) throw new Error(`${address} is not an IP address`)
  return ipv6Refusal(ipaddr.IPv6.parse(bare))
}

function ipv4Refusal(address: IPv4): string | undefined {
  const range = address.range()
  if (range === 'unspecified' && address.toString() === '0.0.0.0') return 'an unspecified address'
  const kind = Object.hasOwn(IPV4_KINDS, range) ? IPV4_KINDS[range] : 'a reserved address'
  if (range === 'reserved') return refined(address) ?? kind
  return kind
}

function ipv6Refusal(address: IPv6): string | undefined {
  const embedded = embeddedIpv4(address)
  if (embedded) {
    const kind = ipv4Refusal(embedded.address)
    return kind && `${kind} (${embedded.label} ${embedded.address.toString()})`
  }
  const range = address.range()
  if (Object.hasOwn(IPV6_KINDS, range)) return IPV6_KINDS[range]
  // What is left of 64:ff9b::/96's neighbours in rfc6052: the local-use NAT64 prefix.
  if (range === 'rfc6052') return 'a private address (local-use NAT64)'
  if (!within(address, GLOBAL_UNICAST)) return 'a reserved address (not global unicast)'
  if (range === 'reserved' || within(address, IETF_ASSIGNMENTS)) return refined(address) ?? 'a reserved address'
  return undefined
}

function refined(address: IPv4 | IPv6): string | undefined {
  return RESERVED_WORDS.find(([ranges]) => within(address, ranges))?.[1]
}

/** The IPv4 address inside an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 address. */
function embeddedIpv4(address: IPv6): { address: IPv4; label: string } | undefined {
  const bytes = address.toByteArray()
  const v4 = (from: number) => ipaddr.IPv4.parse(bytes.slice(from, from + 4).join('.'))
  if (address.isIPv4MappedAddress()) return { address: address.toIPv4Address(), label: 'IPv4-mapped' }
  if (within(address, NAT64)) return { address: v4(12), label: 'NAT64' }
  if (address.range() === '6to4') return { address: v4(2), label: '6to4' }
  return undefined
}

/** An IPv6 address's 32 hexadecimal digits, however it is written (`::`, a trailing dotted quad, upper case). */
export function ipv6Hex(text: string): string {
  return ipaddr.IPv6.parse(text)
    .toByteArray()
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('')
}
