import { isIPv4, isIPv6 } from 'node:net'

/**
 * Address ranges an outbound call must not reach unless private targets are allowed: anything
 * that is not a public unicast address on the internet. First match wins, so narrow ranges come
 * before the wide ones that hold them. Sources: the IANA IPv4 and IPv6 special-purpose address
 * registries (RFC 6890 and its updates).
 */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 32, 'an unspecified address'],
  ['255.255.255.255', 32, 'a broadcast address'],
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  // Cloud metadata services (169.254.169.254) live here: the classic SSRF prize.
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address (IETF protocol assignments)'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved address (6to4 relay anycast)'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a reserved address (benchmarking)'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
]

/** IPv6 ranges that carry an IPv4 address: judged by the address inside. */
const EMBEDDING: ReadonlyArray<readonly [string, number, string, (value: bigint) => number]> = [
  ['::ffff:0:0', 96, 'IPv4-mapped', (value) => Number(value & 0xffffffffn)],
  ['64:ff9b::', 96, 'NAT64', (value) => Number(value & 0xffffffffn)],
  ['2002::', 16, '6to4', (value) => Number((value >> 80n) & 0xffffffffn)],
]

const IPV6_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['64:ff9b:1::', 48, 'a private address (local-use NAT64)'],
  ['100::', 64, 'a reserved address (discard-only)'],
  ['2001:db8::', 32, 'a documentation address'],
  ['2001::', 23, 'a reserved address (IETF protocol assignments)'],
  ['3fff::', 20, 'a documentation address'],
  ['fc00::', 7, 'a private address (unique local)'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a private address (site-local)'],
  ['ff00::', 8, 'a multicast address'],
  // Only 2000::/3 is allocated for global unicast; the rest (IPv4-compatible ::a.b.c.d included) is not a place to call.
  ['2000::', 3, ''],
]

/**
 * What kind of address `address` is when an outbound call must not go there ("a loopback
 * address"), or undefined for a public one. `address` must be an IPv4 or IPv6 address.
 */
export function addressRefusal(address: string): string | undefined {
  if (isIPv4(address)) return ipv4Refusal(ipv4Value(address))
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (!isIPv6(bare)) throw new Error(`${address} is not an IP address`)
  return ipv6Refusal(ipv6Value(bare))
}

function ipv4Refusal(value: number): string | undefined {
  for (const [first, bits, kind] of IPV4_RANGES) {
    if (inRange(BigInt(value), BigInt(ipv4Value(first)), bits, 32)) return kind
  }
  return undefined
}

function ipv6Refusal(value: bigint): string | undefined {
  for (const [first, bits, label, inner] of EMBEDDING) {
    if (!inRange(value, ipv6Value(first), bits, 128)) continue
    const embedded = inner(value)
    const kind = ipv4Refusal(embedded)
    return kind && `${kind} (${label} ${ipv4Text(embedded)})`
  }
  for (const [first, bits, kind] of IPV6_RANGES) {
    if (inRange(value, ipv6Value(first), bits, 128)) return kind || undefined
  }
  return 'a reserved address (not global unicast)'
}

const inRange = (value: bigint, first: bigint, bits: number, width: number) =>
  value >> BigInt(width - bits) === first >> BigInt(width - bits)

/** Dotted-quad IPv4 (already validated) as an unsigned 32-bit number. */
const ipv4Value = (text: string) => text.split('.').reduce((sum, part) => sum * 256 + Number(part), 0)

const ipv4Text = (value: number) => [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.')

/** An IPv6 address (already validated; `::` and a trailing dotted quad allowed) as a 128-bit number. */
export function ipv6Value(text: string): bigint {
  let hex = text
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const v4 = ipv4Value(dotted[1]!)
    hex = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const [head = '', tail] = hex.split('::')
  const groups = (part: string | undefined) => (part ? part.split(':') : [])
  const before = groups(head)
  const after = groups(tail)
  const all = tail === undefined ? before : [...before, ...Array(8 - before.length - after.length).fill('0'), ...after]
  return all.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n)
}
