import { isIP } from 'node:net'
import type { IpFamily } from '../config/config-schema.ts'
import type { Clock } from '../lib/clock.ts'
import { DnsUnavailableError, failureOf, recordsOf, type DnsAnswer, type Resolver } from '../lib/dns.ts'
import { TtlCache } from '../lib/ttl-cache.ts'

/** Where a domain's mail goes. */
export type Route =
  /** Hosts in the order to try them, at most MAX_MX_HOSTS. */
  | { kind: 'hosts'; hosts: string[] }
  /** RFC 7505: the domain accepts no mail. */
  | { kind: 'null-mx' }
  /** The domain does not exist, or has neither MX nor address. */
  | { kind: 'no-domain' }

/** A host's addresses in the order to try them, and what went wrong finding them. */
export interface HostAddresses {
  addresses: string[]
  /** One line per lookup that failed: `mx1.example.com AAAA REFUSED`. */
  problems: string[]
}

/** DNS did not answer, or answered SERVFAIL or REFUSED: try again later. */
export class TemporaryDnsError extends Error {
  override name = 'TemporaryDnsError'
}

/** MX hosts one attempt tries at most (Postfix's smtp_mx_address_limit is of the same mind). */
export const MAX_MX_HOSTS = 5

const MIN_TTL_MS = 60_000
const MAX_TTL_MS = 60 * 60_000
/** A lookup that failed is not asked again for this long: the other family's answer carries on meanwhile. */
const FAILURE_TTL_MS = 60_000

const ttlOf = (answer: DnsAnswer) => {
  const ttls = answer.answers.map((r) => r.ttl * 1000)
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ttls.length > 0 ? Math.min(...ttls) : MIN_TTL_MS * 5))
}

/** MX hosts by preference, each once; hosts of equal preference in random order (RFC 5321 5.1). */
const byPreference = (records: Array<{ value: string; priority?: number }>) => {
  const hosts = records
    .map((r) => ({ host: r.value.replace(/\.$/, ''), priority: r.priority ?? 0, tiebreak: Math.random() }))
    .sort((a, b) => a.priority - b.priority || a.tiebreak - b.tiebreak)
    .map((r) => r.host)
  return [...new Set(hosts)]
}

/** One lookup's outcome: the records' values, or why there are none to be had now. */
type Lookup = { ok: true; values: string[]; exists: boolean } | { ok: false; problem: string }

/** IPv6 and IPv4 addresses taken in turn, IPv6 first (RFC 8305 4). */
function interleave(v6: string[], v4: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < Math.max(v6.length, v4.length); i++) {
    if (i < v6.length) out.push(v6[i]!)
    if (i < v4.length) out.push(v4[i]!)
  }
  return out
}

/**
 * MX and address lookups through the configured resolver, remembered for their TTL. A and AAAA
 * are asked independently: one failing (REFUSED, SERVFAIL, silence) never discards the other's
 * answer, and is remembered for a minute so that each attempt does not wait for it again.
 */
export function createMxResolver(resolver: Resolver, clock: Clock, family: IpFamily = 'any') {
  const routes = new TtlCache<Route>(clock, MAX_TTL_MS)
  const lookups = new TtlCache<Lookup>(clock, MAX_TTL_MS)

  async function lookup(name: string, type: 'A' | 'AAAA'): Promise<Lookup> {
    const key = `${type} ${name}`
    const cached = lookups.get(key)
    if (cached) return cached
    let result: Lookup
    let ttl = FAILURE_TTL_MS
    try {
      const answer = await resolver.query(name, type)
      if (answer.rcode === 'NOERROR' || answer.rcode === 'NXDOMAIN') {
        result = { ok: true, values: recordsOf(answer, type).map((r) => r.value), exists: answer.rcode === 'NOERROR' }
        ttl = ttlOf(answer)
      } else {
        result = { ok: false, problem: `${name} ${type} ${failureOf(answer)}` }
      }
    } catch (error) {
      if (!(error instanceof DnsUnavailableError)) throw error
      result = { ok: false, problem: `${name} ${type} no answer (${error.message})` }
    }
    lookups.set(key, result, ttl)
    return result
  }

  /** The addresses of a host in the order to try them (IPv6 and IPv4 in turn), as the family allows. */
  async function addresses(host: string): Promise<HostAddresses> {
    if (isIP(host)) return { addresses: [host], problems: [] }
    const [v6, v4] = await Promise.all([
      family === 'ipv4' ? undefined : lookup(host, 'AAAA'),
      family === 'ipv6' ? undefined : lookup(host, 'A'),
    ])
    const found = (result: Lookup | undefined) => (result?.ok ? result.values : [])
    const problems = [v6, v4].flatMap((result) => (result && !result.ok ? [result.problem] : []))
    return { addresses: interleave(found(v6), found(v4)), problems }
  }

  /** The implicit MX of a domain without MX records (RFC 5321 5.1): the domain itself, if it has an address. */
  async function implicit(domain: string): Promise<Route> {
    const { addresses: found, problems } = await addresses(domain)
    if (found.length > 0) return { kind: 'hosts', hosts: [domain] }
    // No address, but a lookup failed: that is not "no mail server", only "not known now".
    if (problems.length > 0) throw new TemporaryDnsError(`${domain} has no MX records, and its address lookups failed: ${problems.join('; ')}`)
    return { kind: 'no-domain' }
  }

  async function route(domain: string): Promise<Route> {
    const cached = routes.get(domain)
    if (cached) return cached
    let answer: DnsAnswer
    try {
      answer = await resolver.query(domain, 'MX')
    } catch (error) {
      if (error instanceof DnsUnavailableError) throw new TemporaryDnsError(`${domain} MX no answer (${error.message})`)
      throw error
    }
    if (answer.rcode !== 'NOERROR' && answer.rcode !== 'NXDOMAIN') throw new TemporaryDnsError(`${domain} MX ${failureOf(answer)}`)
    const exchanges = recordsOf(answer, 'MX')
    // A null MX among others means nothing (RFC 7505 3): the others are the route.
    const hosts = exchanges.filter((r) => !['', '.'].includes(r.value))
    let result: Route
    if (answer.rcode === 'NXDOMAIN') result = { kind: 'no-domain' }
    else if (exchanges.length > 0 && hosts.length === 0) result = { kind: 'null-mx' }
    else if (hosts.length > 0) result = { kind: 'hosts', hosts: byPreference(hosts).slice(0, MAX_MX_HOSTS) }
    else result = await implicit(domain)
    routes.set(domain, result, ttlOf(answer))
    return result
  }

  return { route, addresses, family }
}

export type MxResolver = ReturnType<typeof createMxResolver>
