import { isIP } from 'node:net'

/**
 * An IP address in one canonical form, so that two spellings of one address compare equal:
 * IPv4 as a dotted quad, IPv6 compressed in lower case (RFC 5952), an IPv4-mapped IPv6 address
 * as its IPv4 address. Undefined when `text` is not an IP address (a zone index included).
 */
export function canonicalIp(text: string): string | undefined {
  const trimmed = text.trim().toLowerCase()
  if (isIP(trimmed) === 4) return trimmed
  if (isIP(trimmed) !== 6 || trimmed.includes('%')) return undefined
  // The URL parser writes IPv6 in RFC 5952 form; a mapped IPv4 comes out as two hex groups.
  const canonical = new URL(`http://[${trimmed}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical)
  if (!mapped) return canonical
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)]
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/**
 * A canonical address as limits count it (HTTP rate limits, failed logins over HTTP and SMTP):
 * IPv6 by its /64, the block one subscriber is given, so a client cannot take a fresh budget with
 * each of its 2^64 addresses.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown'
  if (!address.includes(':')) return address
  const groups = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const expanded = expandIpv6(groups)
  return `${expanded.slice(0, 4).join(':')}::/64`
}

function expandIpv6(text: string): string[] {
  const [head, tail] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...middle, ...right]
}
