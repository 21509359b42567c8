import { sql } from 'kysely'
import { waitingDomains } from '../../core/queue/index.ts'
import type { Db } from '../../db/schema.ts'
import type { SiteRow } from './site-state.ts'

const COLUMNS = [
  'name', 'provider', 'mx_hosts', 'first_delivery_at', 'day_start', 'day_count', 'rate_per_minute', 'throttle_level', 'throttle_base_rate',
  'throttle_until', 'throttle_step_ms', 'throttle_reason', 'suspended_until', 'suspension_reason', 'updated_at',
] as const satisfies ReadonlyArray<keyof SiteRow>

export const loadSites = (db: Db): Promise<SiteRow[]> => db.selectFrom('delivery_sites').selectAll().orderBy('name').execute()

/** Writes sites' state as the shaper holds it. */
export async function saveSites(db: Db, rows: readonly SiteRow[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('delivery_sites')
      .values(row)
      .onConflict((oc) => oc.column('name').doUpdateSet(Object.fromEntries(COLUMNS.filter((c) => c !== 'name').map((c) => [c, (eb: any) => eb.ref(`excluded.${c}`)])) as never))
      .execute()
  }
}

/** Records which site destination domains were found to be. */
export async function mapDomains(db: Db, entries: ReadonlyArray<{ domain: string; site: string }>, now: number): Promise<void> {
  for (const { domain, site } of entries) {
    await db
      .insertInto('delivery_site_domains')
      .values({ domain, site, updated_at: now })
      .onConflict((oc) => oc.column('domain').doUpdateSet({ site, updated_at: now }))
      .execute()
  }
}

/**
 * Waiting deliveries (queued, deferred, scheduled) by the site their domain was last found to be,
 * counting at most `cap` of them; a domain not looked up yet counts under `domain:<name>`. Of one
 * project, when given.
 */
export async function siteQueues(db: Db, cap: number, projectId?: number): Promise<Map<string, number>> {
  const site = sql<string>`coalesce(m.site, 'domain:' || w.recipient_domain)`
  // Grouped by the expression, not by its name: both databases read a bare `site` as m.site's column.
  const rows = await db
    .selectFrom(waitingDomains(db, cap, projectId).as('w'))
    .leftJoin('delivery_site_domains as m', 'm.domain', 'w.recipient_domain')
    .select([site.as('site'), (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(site)
    .execute()
  return new Map(rows.map((row) => [row.site, Number(row.count)]))
}
