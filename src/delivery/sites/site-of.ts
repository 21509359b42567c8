import type { SiteRule } from './rules.ts'

/** A destination site: who it is, and the rule (a large provider's) that shapes it, if any. */
export interface SiteIdentity {
  /** The rule's name, or the MX host set (`mx1.example.com,mx2.example.com`), or `domain:<name>`. */
  name: string
  rule?: SiteRule
  mxHosts: string[]
}

const matches = (host: string, suffix: string) => host === suffix.replace(/^\./, '') || host.endsWith(suffix.startsWith('.') ? suffix : `.${suffix}`)

/**
 * The site a set of MX hosts is. A host under a provider's suffix makes it that provider's site,
 * however many recipient domains point there (all of Gmail's hosts, and Workspace domains', are
 * one site); any other set of hosts is a site of its own, named by its hosts in order.
 */
export function siteOf(mxHosts: readonly string[], rules: readonly SiteRule[]): SiteIdentity {
  const hosts = mxHosts.map((host) => host.toLowerCase().replace(/\.$/, ''))
  const rule = rules.find((candidate) => hosts.some((host) => candidate.match.some((suffix) => matches(host, suffix.toLowerCase()))))
  if (rule) return { name: rule.name, rule, mxHosts: hosts }
  return { name: [...new Set(hosts)].sort().join(','), mxHosts: hosts }
}

/** The site of mail that has no MX host set to group by (DNS failed, null MX, no such domain). */
export const domainSite = (domain: string): SiteIdentity => ({ name: `domain:${domain}`, mxHosts: [] })

/** Everything goes to the smarthost: one site. */
export const smarthostSite = (host: string): SiteIdentity => ({ name: `smarthost:${host}`, mxHosts: [host] })

/** Where sandbox mail goes: the simulator, a site of its own so that it never waits behind real mail. */
export const SANDBOX_SITE: SiteIdentity = { name: 'sandbox', mxHosts: [] }
