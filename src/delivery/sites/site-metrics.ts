import { boundedLabel, type Gauge, type Registry } from '../../lib/metrics.ts'
import type { SiteReport } from './site-report.ts'

/** Sites named in labels; the rest are summed under `other`. */
const SITE_LABELS = 100
/** One scrape reads the sites once, whichever gauge asks first. */
const SHARED_MS = 1000

/**
 * The sites' state at each scrape, read from the database as `mailstead queue sites` reads it:
 * queue, rate of the last minute, limits in force, throttle level, suspension and what warm-up
 * still allows today.
 */
export function siteMetrics(registry: Registry, read: () => Promise<SiteReport[]>) {
  const labelOf = boundedLabel(SITE_LABELS)
  let last: { at: number; reports: Promise<SiteReport[]> } | undefined
  const reports = () => {
    if (!last || Date.now() - last.at > SHARED_MS) last = { at: Date.now(), reports: read() }
    return last.reports
  }
  const perSite = (name: string, help: string, value: (site: SiteReport) => number | undefined) =>
    registry.gauge({
      name,
      help,
      labelNames: ['site'],
      async collect(gauge: Gauge<'site'>) {
        gauge.reset()
        for (const site of await reports()) {
          const v = value(site)
          if (v !== undefined) gauge.inc({ site: labelOf(site.name) }, v)
        }
      },
    })
  perSite('mailstead_site_queued', 'Deliveries waiting for each destination site (queued, deferred, scheduled)', (site) => site.queued)
  perSite('mailstead_site_rate_per_minute', 'Attempts started to each destination site in the last minute', (site) => site.ratePerMinute)
  perSite('mailstead_site_throttle_level', "How many times a site's limits are halved because it said to slow down (0: not)", (site) => site.throttle?.level ?? 0)
  perSite('mailstead_site_suspended', '1 while a site is suspended because it said this server is blocked', (site) => (site.suspension ? 1 : 0))
  perSite('mailstead_site_warmup_remaining', 'Messages warm-up still allows a site today (sites under warm-up only)', (site) => (site.warmup ? Math.max(0, site.warmup.cap - site.warmup.sentToday) : undefined))
  registry.gauge({
    name: 'mailstead_site_limit',
    help: 'The limits in force for each destination site: connections, messages_per_connection, messages_per_minute (absent: no cap)',
    labelNames: ['site', 'limit'],
    async collect(gauge) {
      gauge.reset()
      for (const site of await reports()) {
        const label = labelOf(site.name)
        gauge.set({ site: label, limit: 'connections' }, site.limits.connections)
        gauge.set({ site: label, limit: 'messages_per_connection' }, site.limits.messagesPerConnection)
        if (site.limits.messagesPerMinute !== null) gauge.set({ site: label, limit: 'messages_per_minute' }, site.limits.messagesPerMinute)
      }
    },
  })
}
