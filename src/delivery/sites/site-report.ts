import type { Db } from '../../db/schema.ts'
import type { Shaping } from './configure.ts'
import type { SiteLimits } from './rules.ts'
import { siteQueues } from './sites.repository.ts'
import { baseLimits, holdOf, limitsOf, stepBack, warmupOf, type SiteRow } from './site-state.ts'

/** Waiting deliveries a report counts at most (as the queue gauge does): a deeper queue still reads as deep. */
export const SITE_QUEUE_CAP = 100_000
/** A rate written longer ago than this is of a server that stopped sending: none now. */
const RATE_FRESH_MS = 90_000

/** One destination site as `mailstead queue sites`, the API and metrics show it. */
export interface SiteReport {
  name: string
  /** The site rule it matched, and its label; null for any other site. */
  provider: string | null
  label: string | null
  mxHosts: string[]
  /** Waiting deliveries for it (queued, deferred, scheduled). */
  queued: number
  /** The limits in force now, and those of its rule (or the defaults). */
  limits: SiteLimits
  baseLimits: SiteLimits
  /** Attempts started in the last minute. */
  ratePerMinute: number
  /** Slowed down: its limits halved `level` times, until `until` (then a level comes back). */
  throttle: { level: number; until: string | null; reason: string | null } | null
  suspension: { until: string; reason: string | null } | null
  warmup: { day: number; days: number; cap: number; sentToday: number } | null
  /** Why its mail waits now, if it does. */
  holding: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/**
 * Every known site with its queue (of one project, when given), limits, rate, throttle,
 * suspension and warm-up, as the database has them (the delivery loop writes its state every
 * few seconds). Sites with the most waiting first.
 */
export async function siteReports(db: Db, shaping: Shaping, now: number, projectId?: number): Promise<SiteReport[]> {
  const [rows, queues] = await Promise.all([db.selectFrom('delivery_sites').selectAll().execute(), siteQueues(db, SITE_QUEUE_CAP, projectId)])
  const known = new Set(rows.map((row) => row.name))
  const reports = rows.map((row) => report(row, shaping, now, queues.get(row.name) ?? 0))
  // Domains whose site is not known yet (not looked up since they were queued) count under their own name.
  for (const [name, queued] of queues) if (!known.has(name)) reports.push(unknownSite(name, shaping, queued))
  return reports.sort((a, b) => b.queued - a.queued || a.name.localeCompare(b.name))
}

function report(stored: SiteRow, shaping: Shaping, now: number, queued: number): SiteReport {
  const row = { ...stored }
  stepBack(row, now)
  const rule = shaping.rules.find((candidate) => candidate.name === row.provider)
  const base = baseLimits(rule, shaping.settings)
  const warmup = warmupOf(row, rule, shaping.settings, now)
  const suspended = row.suspended_until !== null && row.suspended_until > now
  return {
    name: row.name,
    provider: row.provider,
    label: rule?.label ?? null,
    mxHosts: JSON.parse(row.mx_hosts) as string[],
    queued,
    limits: limitsOf(row, base),
    baseLimits: base,
    ratePerMinute: now - row.updated_at <= RATE_FRESH_MS ? row.rate_per_minute : 0,
    throttle: row.throttle_level > 0 ? { level: row.throttle_level, until: iso(row.throttle_until), reason: row.throttle_reason } : null,
    suspension: suspended ? { until: iso(row.suspended_until)!, reason: row.suspension_reason } : null,
    warmup: warmup ? { day: warmup.day, days: warmup.days, cap: warmup.cap, sentToday: warmup.sentToday } : null,
    holding: holdOf(row, rule, shaping.settings, now)?.reason ?? null,
  }
}

function unknownSite(name: string, shaping: Shaping, queued: number): SiteReport {
  const limits = shaping.settings.defaults
  return { name, provider: null, label: null, mxHosts: [], queued, limits, baseLimits: limits, ratePerMinute: 0, throttle: null, suspension: null, warmup: null, holding: null }
}
