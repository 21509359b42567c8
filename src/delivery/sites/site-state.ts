import type { Selectable } from 'kysely'
import type { DeliverySiteTable } from '../../db/schema.ts'
import type { SiteLimits, SiteRule } from './rules.ts'

/** A site's state as stored: what the loop keeps, and what the CLI, the API and metrics read. */
export type SiteRow = Selectable<DeliverySiteTable>

/** How a site's mail is shaped: its rules and the server's warm-up. */
export interface SiteSettings {
  /** Limits of a site that no rule limits. */
  defaults: SiteLimits
  warmup: { on: boolean; schedule: readonly number[] }
}

/** The deepest a site is throttled: its limits halved this many times. */
export const MAX_THROTTLE_LEVEL = 6
const DAY = 86_400_000

export const dayStartOf = (now: number) => Math.floor(now / DAY) * DAY

export const newSiteRow = (name: string, provider: string | null, mxHosts: readonly string[], now: number): SiteRow => ({
  name,
  provider,
  mx_hosts: JSON.stringify(mxHosts),
  first_delivery_at: null,
  day_start: null,
  day_count: 0,
  rate_per_minute: 0,
  throttle_level: 0,
  throttle_base_rate: null,
  throttle_until: null,
  throttle_step_ms: null,
  throttle_reason: null,
  suspended_until: null,
  suspension_reason: null,
  updated_at: now,
})

/** The limits a site's rule sets, over the defaults. */
export const baseLimits = (rule: SiteRule | undefined, settings: SiteSettings): SiteLimits => ({ ...settings.defaults, ...rule?.limits })

/** A quiet period that has passed gives a throttled site one level back; answers whether it did. */
export function stepBack(row: SiteRow, now: number): boolean {
  if (row.throttle_level === 0 || row.throttle_until === null || now < row.throttle_until) return false
  row.throttle_level--
  row.throttle_until = row.throttle_level > 0 ? now + (row.throttle_step_ms ?? 30 * 60_000) : null
  if (row.throttle_level === 0) {
    row.throttle_base_rate = null
    row.throttle_step_ms = null
    row.throttle_reason = null
  }
  return true
}

/**
 * A "slow down" reply: the site's limits halve, from its rate of the last minute if it had no cap
 * (at most one step per `spacingMs`, so that the replies to messages already in flight count
 * once), and the quiet period before they come back starts again.
 */
export function throttle(row: SiteRow, reason: string, stepMs: number, observedPerMinute: number, base: SiteLimits, lastStepAt: number, spacingMs: number, now: number): boolean {
  const deepen = row.throttle_level === 0 || now - lastStepAt >= spacingMs
  if (deepen) {
    if (row.throttle_level === 0) row.throttle_base_rate = base.messagesPerMinute ?? Math.max(1, observedPerMinute)
    row.throttle_level = Math.min(MAX_THROTTLE_LEVEL, row.throttle_level + 1)
  }
  row.throttle_until = now + stepMs
  row.throttle_step_ms = stepMs
  row.throttle_reason = reason
  return deepen
}

/** A "you are blocked" reply: all mail for the site waits until `until`. */
export function suspend(row: SiteRow, reason: string, until: number): void {
  row.suspended_until = Math.max(row.suspended_until ?? 0, until)
  row.suspension_reason = reason
}

/** The limits in force now: the base ones, halved per throttle level. */
export function limitsOf(row: SiteRow, base: SiteLimits): SiteLimits {
  if (row.throttle_level === 0) return base
  const halve = (value: number) => Math.max(1, Math.floor(value / 2 ** row.throttle_level))
  return {
    connections: halve(base.connections),
    messagesPerConnection: base.messagesPerConnection,
    messagesPerMinute: halve(row.throttle_base_rate ?? base.messagesPerMinute ?? 1),
  }
}

/** Where a site stands in its warm-up today; undefined when it is not capped. */
export function warmupOf(row: SiteRow, rule: SiteRule | undefined, settings: SiteSettings, now: number) {
  if (!settings.warmup.on || !rule?.warmup) return undefined
  const today = dayStartOf(now)
  const day = row.first_delivery_at === null ? 1 : Math.floor((today - dayStartOf(row.first_delivery_at)) / DAY) + 1
  const cap = settings.warmup.schedule[day - 1]
  if (cap === undefined) return undefined
  const sentToday = row.day_start === today ? row.day_count : 0
  return { day, days: settings.warmup.schedule.length, cap, sentToday, nextDayAt: today + DAY }
}

/** Why a site's mail must wait now, and until when: a suspension, or the day's warm-up cap. */
export function holdOf(row: SiteRow, rule: SiteRule | undefined, settings: SiteSettings, now: number) {
  if (row.suspended_until !== null && row.suspended_until > now) {
    return { until: row.suspended_until, category: 'suspended', reason: `the site ${row.name} is suspended until ${new Date(row.suspended_until).toISOString()}: ${row.suspension_reason}` }
  }
  const warmup = warmupOf(row, rule, settings, now)
  if (warmup && warmup.sentToday >= warmup.cap) {
    return { until: warmup.nextDayAt, category: 'warmup', reason: `warm-up: day ${warmup.day} of ${warmup.days} allows ${warmup.cap} messages a day to ${rule!.label}; the rest wait for the next day` }
  }
  return undefined
}

/** Counts one attempt started today (what the warm-up cap counts). */
export function countStarted(row: SiteRow, now: number): void {
  const today = dayStartOf(now)
  if (row.day_start !== today) {
    row.day_start = today
    row.day_count = 0
  }
  row.day_count++
}
