import type { Clock } from '../../lib/clock.ts'
import { TtlCache } from '../../lib/ttl-cache.ts'
import type { MxResolver } from '../mx.ts'
import type { SiteRule } from './rules.ts'
import { domainSite, siteOf, smarthostSite, type SiteIdentity } from './site-of.ts'

/** A domain's site is looked up again after this long: its MX hosts may have moved. */
const REMEMBER_MS = 5 * 60_000

/**
 * Which site each destination domain's mail goes to, from its MX hosts (through the MX resolver's
 * cache). Known sites answer at once; a domain is looked up once however many of its deliveries
 * wait for the answer. A domain whose MX lookup fails is a site of its own for now: its attempts
 * say why.
 */
export function createSiteResolver(mx: MxResolver, rules: readonly SiteRule[], clock: Clock, smarthost?: string) {
  const known = new TtlCache<SiteIdentity>(clock, REMEMBER_MS, 100_000)
  const looking = new Map<string, Promise<SiteIdentity>>()

  async function lookUp(domain: string): Promise<SiteIdentity> {
    try {
      const route = await mx.route(domain)
      return route.kind === 'hosts' ? siteOf(route.hosts, rules) : domainSite(domain)
    } catch {
      return domainSite(domain)
    }
  }

  return {
    /** The domain's site if known now. */
    cached(domain: string): SiteIdentity | undefined {
      return smarthost ? smarthostSite(smarthost) : known.get(domain)
    },
    resolve(domain: string): Promise<SiteIdentity> {
      if (smarthost) return Promise.resolve(smarthostSite(smarthost))
      let pending = looking.get(domain)
      if (!pending) {
        pending = lookUp(domain)
          .then((site) => {
            // A failed lookup is not remembered long: the next claim asks again.
            known.set(domain, site, site.name.startsWith('domain:') ? 30_000 : REMEMBER_MS)
            return site
          })
          .finally(() => looking.delete(domain))
        looking.set(domain, pending)
      }
      return pending
    },
  }
}

export type SiteResolver = ReturnType<typeof createSiteResolver>
