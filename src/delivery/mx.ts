import type { Clock } from '../lib/clock.ts'
import { DnsUnavailableError, recordsOf, type DnsAnswer, type Resolver } from '../lib/dns.ts'
import { TtlCache } from '../lib/ttl-cache.ts'

/** Where a domain's mail goes. */
export type Route =
  /** Hosts in the order to try them. */
  | { kind: 'hosts'; hosts: string[] }
  /** RFC 7505: the domain accepts no mail. */
  | { kind: 'null-mx' }
  /** The domain does not exist, or has neither MX nor address. */
  | { kind: 'no-domain' }

/** DNS did not answer, or answered SERVFAIL: try again later. */
export class TemporaryDnsError extends Error {
  override name = 'TemporaryDnsError'
}

const MIN_TTL_MS = 60_000
const MAX_TTL_MS = 60 * 60_000

const ttlOf = (answer: DnsAnswer) => {
  const ttls = answer.answers.map((r) => r.ttl * 1000)
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ttls.length > 0 ? Math.min(...ttls) : MIN_TTL_MS * 5))
}

/** MX hosts by preference; hosts of equal preference in random order (RFC 5321 5.1). */
const byPreference = (records: Array<{ value: string; priority?: number }>) =>
  records
    .map((r) => ({ host: r.value.replace(/\.$/, ''), priority: r.priority ?? 0, tiebreak: Math.random() }))
    .sort((a, b) => a.priority - b.priority || a.tiebreak - b.tiebreak)
    .map((r) => r.host)

/** MX and address lookups through the configured resolver, remembered for their TTL. */
export function createMxResolver(resolver: Resolver, clock: Clock) {
  const routes = new TtlCache<Route>(clock, MAX_TTL_MS)
  const addressCache = new TtlCache<string[]>(clock, MAX_TTL_MS)

  async function ask(name: string, type: 'MX' | 'A' | 'AAAA'): Promise<DnsAnswer> {
    let answer: DnsAnswer
    try {
      answer = await resolver.query(name, type)
    } catch (error) {
      if (error instanceof DnsUnavailableError) throw new TemporaryDnsError(error.message)
      throw error
    }
    if (answer.rcode !== 'NOERROR' && answer.rcode !== 'NXDOMAIN') throw new TemporaryDnsError(`${type} ${name}: ${answer.rcode}`)
    return answer
  }

  /** The A and AAAA addresses of a host (IPv4 first); empty when it has none. */
  async function addresses(host: string): Promise<string[]> {
    const cached = addressCache.get(host)
    if (cached) return cached
    const [a, aaaa] = await Promise.all([ask(host, 'A'), ask(host, 'AAAA')])
    const found = [...recordsOf(a, 'A'), ...recordsOf(aaaa, 'AAAA')].map((r) => r.value)
    addressCache.set(host, found, Math.min(ttlOf(a), ttlOf(aaaa)))
    return found
  }

  async function route(domain: string): Promise<Route> {
    const cached = routes.get(domain)
    if (cached) return cached
    const answer = await ask(domain, 'MX')
    const exchanges = recordsOf(answer, 'MX')
    let result: Route
    if (answer.rcode === 'NXDOMAIN') result = { kind: 'no-domain' }
    else if (exchanges.length === 1 && ['', '.'].includes(exchanges[0]!.value)) result = { kind: 'null-mx' }
    else if (exchanges.length > 0) result = { kind: 'hosts', hosts: byPreference(exchanges) }
    else result = (await addresses(domain)).length > 0 ? { kind: 'hosts', hosts: [domain] } : { kind: 'no-domain' }
    routes.set(domain, result, ttlOf(answer))
    return result
  }

  return { route, addresses }
}

export type MxResolver = ReturnType<typeof createMxResolver>
