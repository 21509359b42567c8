import type { Clock } from '../../lib/clock.ts'
import type { Logger } from '../../lib/logger.ts'
import type { SmtpReply } from '../classify.ts'
import { matchAutomation } from './automation.ts'
import type { AutomationRule, SiteLimits, SiteRule } from './rules.ts'
import type { SiteIdentity } from './site-of.ts'
import { baseLimits, countStarted, holdOf, limitsOf, newSiteRow, stepBack, suspend, throttle, type SiteRow, type SiteSettings } from './site-state.ts'

export interface ShaperDeps {
  clock: Clock
  logger: Logger
  rules: readonly SiteRule[]
  /** Replies any site may give, tried after a site's own. */
  automation: readonly AutomationRule[]
  settings: SiteSettings
}

/**
 * A throttle deepens at most once a minute: the replies to what was sent before it took effect
 * (in flight, or still within the remote's counting minute) say nothing of the new pace.
 */
const STEP_SPACING_MS = 60_000

interface Entry {
  row: SiteRow
  rule: SiteRule | undefined
  /** Attempts started in each of the last 60 seconds: the site's rate. */
  perSecond: Int32Array
  stamps: Float64Array
  bucket: { tokens: number; at: number }
  lastStepAt: number
  dirty: boolean
  /** The lookup's answer last seen for it. */
  seen?: SiteIdentity
}

/**
 * The shaping state of every destination site: the limits in force (a rule's, halved while the
 * site asks to slow down, and back a step at a time after a quiet period), suspensions, the
 * warm-up cap, and the rate of the last minute. The delivery loop asks it before each attempt and
 * tells it each reply; what changed is written to the database by `flush()`.
 */
export function createShaper(deps: ShaperDeps) {
  const { clock, settings } = deps
  const sites = new Map<string, Entry>()

  const newEntry = (row: SiteRow, rule: SiteRule | undefined, dirty: boolean): Entry => ({
    row,
    rule,
    perSecond: new Int32Array(60),
    stamps: new Float64Array(60).fill(-1),
    // Full at first: the cap is clamped to its capacity at the first take.
    bucket: { tokens: Number.MAX_SAFE_INTEGER, at: clock.now() },
    lastStepAt: 0,
    dirty,
  })

  function entryOf(name: string): Entry {
    const entry = sites.get(name)
    if (!entry) throw new Error(`unknown site ${name}`)
    return entry
  }

  function ratePerMinute(entry: Entry, now: number): number {
    const second = Math.floor(now / 1000)
    let sum = 0
    for (let i = 0; i < 60; i++) if (entry.stamps[i]! > second - 60) sum += entry.perSecond[i]!
    return sum
  }

  /** Whether a rate token is there (taking it); sites without a cap always have one. */
  function token(entry: Entry, limits: SiteLimits, now: number): boolean {
    if (limits.messagesPerMinute === null) return true
    const capacity = Math.max(1, Math.ceil(limits.messagesPerMinute / 10))
    const bucket = entry.bucket
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 60_000) * limits.messagesPerMinute)
    bucket.at = now
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }

  /** A quiet period that has passed gives a throttled site a level back. */
  function recover(name: string, entry: Entry, now: number) {
    if (!stepBack(entry.row, now)) return
    entry.dirty = true
    deps.logger.info('SITE[recovering]', `${name}: limits come back a step after a quiet period`, { site: name, level: entry.row.throttle_level })
  }

  return {
    /** Knows a site from here on (its MX hosts as last seen); answers its name. */
    know(identity: SiteIdentity): string {
      const known = sites.get(identity.name)
      if (!known) {
        const entry = newEntry(newSiteRow(identity.name, identity.rule?.name ?? null, identity.mxHosts, clock.now()), identity.rule, true)
        entry.seen = identity
        sites.set(identity.name, entry)
      } else if (known.seen !== identity) {
        // A lookup found the site again: its hosts may have changed (the same answer is not compared twice).
        known.seen = identity
        const hosts = JSON.stringify(identity.mxHosts)
        if (known.row.mx_hosts !== hosts && identity.mxHosts.length > 0) {
          known.row.mx_hosts = hosts
          known.dirty = true
        }
      }
      return identity.name
    },

    /** Takes back what was stored: throttles, suspensions and warm-up days survive a restart. */
    restore(rows: readonly SiteRow[]) {
      for (const row of rows) sites.set(row.name, newEntry({ ...row }, deps.rules.find((rule) => rule.name === row.provider), false))
    },

    /** The limits in force for a site now. */
    limits(name: string): SiteLimits {
      const entry = entryOf(name)
      recover(name, entry, clock.now())
      return limitsOf(entry.row, baseLimits(entry.rule, settings))
    },

    /** Why the site's mail must wait now (suspended, or at its warm-up cap), and until when. */
    hold(name: string) {
      const entry = entryOf(name)
      return holdOf(entry.row, entry.rule, settings, clock.now())
    },

    /** Starts an attempt if the site's rate allows one now (counting it); false when it must wait. */
    take(name: string, limits: SiteLimits): boolean {
      const entry = entryOf(name)
      const now = clock.now()
      if (!token(entry, limits, now)) return false
      const second = Math.floor(now / 1000)
      const slot = second % 60
      if (entry.stamps[slot] !== second) {
        entry.stamps[slot] = second
        entry.perSecond[slot] = 0
      }
      entry.perSecond[slot]!++
      if (entry.rule) countStarted(entry.row, now)
      entry.dirty = true
      return true
    },

    /**
     * A site's reply to an attempt: a reply that an automation rule matches throttles or suspends
     * the site. Answers what it did.
     */
    observe(name: string, reply: SmtpReply): 'throttle' | 'suspend' | undefined {
      const entry = entryOf(name)
      const rule = matchAutomation(reply, [...(entry.rule?.automation ?? []), ...deps.automation])
      if (!rule) return undefined
      const now = clock.now()
      const text = `${reply.code} ${reply.text}`.slice(0, 300)
      entry.dirty = true
      if (rule.action === 'suspend') {
        suspend(entry.row, text, now + rule.durationMs)
        deps.logger.warn('SITE[suspended]', `${name}: suspended until ${new Date(entry.row.suspended_until!).toISOString()}; its mail waits`, { site: name, reply: text })
        return 'suspend'
      }
      const base = baseLimits(entry.rule, settings)
      if (throttle(entry.row, text, rule.durationMs, ratePerMinute(entry, now), base, entry.lastStepAt, STEP_SPACING_MS, now)) {
        entry.lastStepAt = now
        entry.bucket.tokens = 0
        const limits = limitsOf(entry.row, base)
        deps.logger.info('SITE[throttled]', `${name}: slowing down to ${limits.connections} connections and ${limits.messagesPerMinute} messages a minute`, { site: name, level: entry.row.throttle_level, reply: text })
      }
      return 'throttle'
    },

    /** A message was delivered to the site: the first one starts its warm-up days. */
    delivered(name: string) {
      const entry = entryOf(name)
      if (entry.row.first_delivery_at !== null) return
      entry.row.first_delivery_at = clock.now()
      entry.dirty = true
    },

    /** The rows changed since the last flush (with the rate of the last minute), to be written. */
    flush(): SiteRow[] {
      const now = clock.now()
      const changed: SiteRow[] = []
      for (const [name, entry] of sites) {
        recover(name, entry, now)
        const rate = ratePerMinute(entry, now)
        if (!entry.dirty && rate === entry.row.rate_per_minute) continue
        entry.row.rate_per_minute = rate
        entry.row.updated_at = now
        entry.dirty = false
        changed.push({ ...entry.row })
      }
      return changed
    },
  }
}

export type Shaper = ReturnType<typeof createShaper>
