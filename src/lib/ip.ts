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
 * A client address as every limit counts it (HTTP rate limits, SMTP connections per address,
 * failed logins): IPv4 by itself, IPv6 by its /64, the block one subscriber is given, so that a
 * client cannot take a fresh budget with each of its 2^64 addresses. One spelling of an address
 * (an IPv4-mapped IPv6 one included) gives one key. 'unknown' when there is none (HTTP in tests).
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown'
  const ip = canonicalIp(address)
  if (!ip) return address
  if (!ip.includes(':')) return ip
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`
}

function expandIpv6(text: string): string[] {
  const [head, tail] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...middle, ...right]
}
