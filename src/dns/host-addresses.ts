import { isIP } from 'node:net'
import { recordsOf, type DnsAnswer, type Resolver } from '../lib/dns.ts'

/**
 * The A and AAAA addresses of a host through the configured resolver (IPv4 first), for outbound
 * calls to check before connecting. An IP literal is its own answer. A name that does not exist
 * has no addresses; a resolver that fails or answers SERVFAIL is an error, unless the other
 * query still gave addresses: those are enough to connect to, and each is checked anyway.
 */
export function hostAddresses(resolver: Resolver): (host: string) => Promise<string[]> {
  return async (host) => {
    const bare = host.replace(/^\[|\]$/g, '')
    if (isIP(bare)) return [bare]
    const name = bare.replace(/\.$/, '')
    const answers = await Promise.allSettled([ask(resolver, name, 'A'), ask(resolver, name, 'AAAA')])
    const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []))
    const failure = answers.find((answer) => answer.status === 'rejected')
    if (addresses.length === 0 && failure) throw failure.reason
    return addresses
  }
}

async function ask(resolver: Resolver, name: string, type: 'A' | 'AAAA'): Promise<string[]> {
  const answer: DnsAnswer = await resolver.query(name, type)
  if (answer.rcode !== 'NOERROR' && answer.rcode !== 'NXDOMAIN') throw new Error(`DNS answered ${answer.rcode} for ${type} ${name}`)
  return recordsOf(answer, type).map((record) => record.value)
}
