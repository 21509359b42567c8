import type { Clock } from '../../lib/clock.ts'
import { DnsUnavailableError, recordsOf, type Resolver } from '../../lib/dns.ts'
import { TtlCache } from '../../lib/ttl-cache.ts'

export interface DomainDns {
  /** The name exists in DNS (the NS query was not answered NXDOMAIN). */
  exists: boolean
  hasMx: boolean
  /** A single MX of "." (RFC 7505): the domain accepts no mail. */
  nullMx: boolean
  /** An A or AAAA record: mail can fall back to it, and a website may be there. */
  hasAddress: boolean
  /** Set when a server failed or did not answer: the other fields are then not to be trusted. */
  unavailable?: string
}

const FIVE_MINUTES = 5 * 60_000

/** What DNS says about a mail domain, asked in parallel and remembered for a few minutes. */
export function createDomainLookup(resolver: Resolver, clock: Clock) {
  const cache = new TtlCache<DomainDns>(clock, FIVE_MINUTES)
  return async (domain: string): Promise<DomainDns> => {
    const cached = cache.get(domain)
    if (cached) return cached
    const result = await lookup(resolver, domain)
    // A failure is not remembered: the next request asks again.
    if (!result.unavailable) cache.set(domain, result)
    return result
  }
}

async function lookup(resolver: Resolver, domain: string): Promise<DomainDns> {
  try {
    const [ns, mx, a, aaaa] = await Promise.all(
      (['NS', 'MX', 'A', 'AAAA'] as const).map((type) => resolver.query(domain, type)),
    )
    const failed = [ns!, mx!, a!, aaaa!].find((answer) => answer.rcode !== 'NOERROR' && answer.rcode !== 'NXDOMAIN')
    const exchanges = recordsOf(mx!, 'MX')
    const nullMx = exchanges.length === 1 && (exchanges[0]!.value === '' || exchanges[0]!.value === '.')
    return {
      exists: ns!.rcode !== 'NXDOMAIN',
      hasMx: exchanges.length > 0 && !nullMx,
      nullMx,
      hasAddress: recordsOf(a!, 'A').length > 0 || recordsOf(aaaa!, 'AAAA').length > 0,
      ...(failed && { unavailable: `the DNS server answered ${failed.rcode}` }),
    }
  } catch (error) {
    if (!(error instanceof DnsUnavailableError)) throw error
    return { exists: false, hasMx: false, nullMx: false, hasAddress: false, unavailable: 'the DNS server did not answer in time' }
  }
}
