import type { Db } from '../../db/schema.ts'
import { campaignEmailIds, listedByDomain } from '../../core/campaigns/index.ts'
import { pendingByDomain } from '../../core/queue/index.ts'
import type { Shaping } from './configure.ts'
import { dayStartOf, warmupOf } from './site-state.ts'

const DAY = 86_400_000

/** What is left of a campaign to send, by destination domain: recipients not handed over yet, and deliveries still pending. */
async function leftByDomain(db: Db, campaignId: string): Promise<Map<string, number>> {
  const left = await listedByDomain(db, campaignId)
  for (const [domain, count] of await pendingByDomain(db, campaignEmailIds(db, campaignId))) left.set(domain, (left.get(domain) ?? 0) + count)
  return left
}

/**
 * When a campaign's last message may go under the warm-up caps: the start of the day on which the
 * capped site that needs the most days gets its last one (today counts what it has left). Null
 * when no cap holds any of it back past today; domains not looked up yet are taken as uncapped.
 */
export async function warmupFinishOf(db: Db, shaping: Shaping, campaignId: string, now: number): Promise<string | null> {
  if (!shaping.settings.warmup.on) return null
  const left = await leftByDomain(db, campaignId)
  if (left.size === 0) return null
  const mapped = await db.selectFrom('delivery_site_domains').select(['domain', 'site']).where('domain', 'in', [...left.keys()]).execute()
  const bySite = new Map<string, number>()
  for (const { domain, site } of mapped) bySite.set(site, (bySite.get(site) ?? 0) + left.get(domain)!)
  if (bySite.size === 0) return null
  const rows = await db.selectFrom('delivery_sites').selectAll().where('name', 'in', [...bySite.keys()]).execute()
  let lastDay = -1
  for (const row of rows) {
    const rule = shaping.rules.find((r) => r.name === row.provider)
    const warmup = warmupOf(row, rule, shaping.settings, now)
    if (!warmup) continue
    let remaining = bySite.get(row.name)! - (warmup.cap - warmup.sentToday)
    let day = 0
    while (remaining > 0) {
      day++
      const cap = shaping.settings.warmup.schedule[warmup.day - 1 + day]
      if (cap === undefined) break
      remaining -= cap
    }
    lastDay = Math.max(lastDay, day)
  }
  // Everything fits within today's allowances: no cap holds the campaign back.
  if (lastDay <= 0) return null
  return new Date(dayStartOf(now) + lastDay * DAY).toISOString()
}
