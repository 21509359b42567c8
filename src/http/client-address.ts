import { BlockList } from 'node:net'
import { canonicalIp } from '../lib/ip.ts'


/** What Elysia hands a handler as `server`: Bun's server, or null under `app.handle` in tests. */
export type ServerLike = { requestIP(request: Request): { address: string } | null } | null

/** Addresses and ranges ("ip" or "ip/bits") whose X-Forwarded-For is believed. */
export function trustedProxies(ranges: readonly string[]): BlockList {
  const list = new BlockList()
  for (const range of ranges) {
    const [ip, bits] = range.split('/')
    const type = ip!.includes(':') ? 'ipv6' : 'ipv4'
    if (bits === undefined) list.addAddress(ip!, type)
    else list.addSubnet(ip!, Number(bits), type)
  }
  return list
}

const isTrusted = (proxies: BlockList, ip: string) => proxies.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4')

/**
 * The client's address, by one rule for every use (rate limits, tracked opens and clicks): the
 * socket's peer, unless that peer is a trusted proxy. Then X-Forwarded-For is read from the
 * right, past the trusted proxies, and its first other address is the client: each proxy appends
 * the address it was reached from, so only the part the trusted proxies wrote is believed, never
 * what the client put at the left. Undefined when the request came with no socket (tests).
 */
export function clientAddress(request: Request, server: ServerLike, proxies: BlockList): string | undefined {
  const peer = canonicalIp(server?.requestIP(request)?.address ?? '')
  if (!peer || !isTrusted(proxies, peer)) return peer
  const hops = (request.headers.get('x-forwarded-for') ?? '').split(',').reverse()
  let client = peer
  for (const hop of hops) {
    const ip = canonicalIp(hop)
    // A hop that is not an address means the header was garbled before our proxies: stop at what they vouch for.
    if (!ip) break
    client = ip
    if (!isTrusted(proxies, ip)) break
  }
  return client
}

/**
 * Whether the browser reached us over HTTPS: the request's own scheme, or, from a trusted proxy
 * only, the first X-Forwarded-Proto (the one the proxy nearest the client wrote). A client
 * reaching the server directly cannot claim HTTPS with the header.
 */
export function viaHttps(request: Request, server: ServerLike, proxies: BlockList): boolean {
  if (request.url.startsWith('https:')) return true
  const peer = canonicalIp(server?.requestIP(request)?.address ?? '')
  if (!peer || !isTrusted(proxies, peer)) return false
  return (request.headers.get('x-forwarded-proto') ?? '').split(',')[0]!.trim().toLowerCase() === 'https'
}

/** Who sent a request, as a consent keeps it: the client's address and its user agent (cut to 500 characters). */
export function consentClient(request: Request, server: ServerLike, proxies: BlockList): { ip: string | null; userAgent: string | null } {
  return { ip: clientAddress(request, server, proxies) ?? null, userAgent: request.headers.get('user-agent')?.slice(0, 500) ?? null }
}
