import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'
import { createPump } from '../lib/pump.ts'
import { TtlCache } from '../lib/ttl-cache.ts'
import { deliveryMetrics, queueDepthMetric } from './metrics.ts'
import { claimDue, releaseInFlight, settle, type Delivery, type Settlement } from './queue.ts'

export interface LoopSettings {
  /** Attempts in flight at once, in all. */
  concurrency: number
  /** Attempts in flight at once to one destination domain. */
  perDomain: number
  /** Emails per second per project, unless the project says otherwise. */
  ratePerSecond: number
  /** How often to look for deliveries that have come due without anyone waking the loop. */
  pollMs: number
}

export interface LoopDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  attempt: (delivery: Delivery) => Promise<Settlement>
  settings: LoopSettings
  metrics: Registry
}

const LOG_TAGS: Record<Settlement['kind'], (s: Settlement) => string> = {
  delivered: () => 'DELIVERED',
  deferred: (s) => `DEFERRED[${(s as { category: string }).category}]`,
  bounced: (s) => `BOUNCED[${(s as { category: string }).category}]`,
  failed: () => 'FAILED',
  suppressed: () => 'SUPPRESSED',
}

/** Claimed deliveries held in memory per destination, as a multiple of its in-flight limit. */
const BUFFER_PER_DOMAIN = 4
/** Claimed deliveries held in memory in all. */
const BUFFER_TOTAL = 1000
/** After a claim found nothing, new mail alone triggers another only after this long (real time). */
const EMPTY_CLAIM_PAUSE_MS = 50

/**
 * The delivery loop. Due deliveries are claimed from the queue into a per-destination buffer (a
 * few times the destination's limit, so one claim feeds many attempts), and started as the limits
 * allow: in all, per destination domain, and per project (a token bucket refilled at the
 * project's rate). One slow destination fills only its own slots and its own buffer.
 */
export function createDeliveryLoop(deps: LoopDeps) {
  const { settings, clock, logger } = deps
  const waiting = new Map<string, Delivery[]>()
  const active = new Map<string, number>()
  const buckets = new Map<number, { tokens: number; at: number }>()
  const rates = new TtlCache<number>(clock, 30_000)
  const running = new Set<Promise<void>>()
  let activeCount = 0
  let waitingCount = 0
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = true
  /** New mail or passing time may have made rows due that the last claim could not see. */
  let fresh = true
  /** The limits under which the last claim found nothing: claiming again under them finds nothing. */
  let emptyUnder: string | undefined
  let emptyAt = 0
  /** Mail was queued since that claim: worth another, but not at every message of a burst. */
  let queuedSince = false
  /** The projects whose mail was queued since that claim, when every caller said (null: unknown). */
  let queuedFor: Set<number> | null = new Set()
  let retry: ReturnType<typeof setTimeout> | undefined
  const metrics = deliveryMetrics(deps.metrics)
  // Claimed rows are `sending` until settled, whether still buffered or in flight.
  queueDepthMetric(deps.metrics, deps.db, () => waitingCount + activeCount)

  /** Destinations with a round of attempts still in their buffer: a claim skips them until it runs low. */
  const stockedDomains = () => [...waiting.keys()].filter((domain) => waiting.get(domain)!.length >= settings.perDomain)

  async function rateOf(projectId: number): Promise<number> {
    const known = rates.get(String(projectId))
    if (known !== undefined) return known
    const row = await deps.db.selectFrom('projects').select('send_rate_per_second').where('id', '=', projectId).executeTakeFirst()
    const rate = row?.send_rate_per_second ?? settings.ratePerSecond
    rates.set(String(projectId), rate)
    return rate
  }

  /** Refills the project's bucket and says whether a token is there (without taking it). */
  async function hasToken(projectId: number): Promise<boolean> {
    const rate = await rateOf(projectId)
    const now = clock.now()
    const bucket = buckets.get(projectId) ?? { tokens: rate, at: now }
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 1000) * rate)
    bucket.at = now
    buckets.set(projectId, bucket)
    return bucket.tokens >= 1
  }

  /** Claims what the buffer has room for; answers whether it filled it (there may be more). */
  async function fill(): Promise<boolean> {
    const free = BUFFER_TOTAL - waitingCount
    if (free <= 0 || stopped) return false
    const starved: number[] = []
    for (const projectId of buckets.keys()) if (!(await hasToken(projectId))) starved.push(projectId)
    const skip = { domains: stockedDomains(), projects: starved }
    const limits = JSON.stringify(skip)
    if (!fresh && limits === emptyUnder) {
      const wait = EMPTY_CLAIM_PAUSE_MS - (Date.now() - emptyAt)
      if (!queuedSince) return false
      // Mail of projects that are at their rate is not claimed anyway: looking for it would only
      // read past their whole backlog (the next tick looks again once they have tokens).
      if (queuedFor && [...queuedFor].every((id) => starved.includes(id))) return false
      if (wait > 0) {
        retry ??= setTimeout(() => ((retry = undefined), wake()), wait)
        return false
      }
    }
    fresh = false
    queuedSince = false
    queuedFor = new Set()
    const claimed = await deps.write((trx) => claimDue(trx, clock.now(), free, settings.perDomain * BUFFER_PER_DOMAIN, skip))
    emptyUnder = claimed.length === 0 ? limits : undefined
    emptyAt = Date.now()
    for (const delivery of claimed) {
      const list = waiting.get(delivery.recipient_domain) ?? []
      list.push(delivery)
      waiting.set(delivery.recipient_domain, list)
    }
    waitingCount += claimed.length
    return claimed.length === free
  }

  async function startReady() {
    // A project found without a token stays without one for the rest of the round: its buffered
    // deliveries are passed over without asking again for each.
    const starved = new Set<number>()
    const ready = async (projectId: number) => {
      if (starved.has(projectId)) return false
      if (await hasToken(projectId)) return true
      starved.add(projectId)
      return false
    }
    for (const [domain, list] of waiting) {
      while ((active.get(domain) ?? 0) < settings.perDomain && activeCount < settings.concurrency) {
        let index = -1
        for (let i = 0; i < list.length && index < 0; i++) if (await ready(list[i]!.project_id)) index = i
        if (index < 0) break
        const [delivery] = list.splice(index, 1)
        buckets.get(delivery!.project_id)!.tokens -= 1
        waitingCount--
        start(delivery!)
      }
      if (list.length === 0) waiting.delete(domain)
    }
  }

  function start(delivery: Delivery) {
    const domain = delivery.recipient_domain
    activeCount++
    active.set(domain, (active.get(domain) ?? 0) + 1)
    const run = deliver(delivery).finally(() => {
      activeCount--
      const left = active.get(domain)! - 1
      if (left === 0) active.delete(domain)
      else active.set(domain, left)
      running.delete(run)
      wake()
    })
    running.add(run)
  }

  async function deliver(delivery: Delivery) {
    const began = performance.now()
    let outcome: Settlement
    try {
      outcome = await deps.attempt(delivery)
    } catch (error) {
      logger.error('FAILED', 'attempt failed unexpectedly', { deliveryId: delivery.id, error: String((error as Error)?.stack ?? error) })
      outcome = { kind: 'failed', data: { startedAt: clock.now() }, reason: 'Internal error' }
    }
    const seconds = (performance.now() - began) / 1000
    try {
      await deps.write((trx) => settle(trx, delivery, outcome, clock.now()))
    } catch (error) {
      // Left `sending`: released and retried at the next start.
      logger.error('QUEUE', 'could not record an outcome', { deliveryId: delivery.id, error: String(error) })
      return
    }
    metrics.settled(delivery, outcome, seconds)
    const level = outcome.kind === 'delivered' || outcome.kind === 'deferred' ? 'info' : 'warn'
    logger[level](LOG_TAGS[outcome.kind](outcome), delivery.recipient, {
      deliveryId: delivery.id,
      emailId: delivery.email_id,
      mx: outcome.data.mx,
      response: outcome.data.response?.slice(0, 200),
    })
  }

  /** A round of claiming and starting; answers whether another should follow at once. */
  async function round(): Promise<boolean> {
    try {
      const full = await fill()
      await startReady()
      return full
    } catch (error) {
      logger.error('QUEUE', 'delivery round failed', { error: String(error) })
      return false
    }
  }

  const pump = createPump(round, (error) => logger.error('QUEUE', 'delivery round failed', { error: String(error) }))

  /**
   * Runs a round; a wake during a round asks for another. `fresh` says that new mail was queued
   * or time has passed, so a claim may find what the last one could not.
   */
  function wake(options: { fresh?: boolean } = {}) {
    if (options.fresh) fresh = true
    pump.wake()
  }

  return {
    wake,
    /** Mail was queued (for this project, if said): a claim may find it, at the latest after a short pause. */
    queued(projectId?: number) {
      queuedSince = true
      if (projectId === undefined) queuedFor = null
      else queuedFor?.add(projectId)
      wake()
    },
    async start() {
      await deps.write((trx) => releaseInFlight(trx, clock.now()))
      stopped = false
      fresh = true
      timer = setInterval(() => wake({ fresh: true }), settings.pollMs)
      timer.unref()
      pump.start()
    },
    /** Stops claiming; waits for attempts in flight; hands claimed ones back to the queue. */
    async stop() {
      stopped = true
      clearInterval(timer)
      clearTimeout(retry)
      await pump.stop()
      await Promise.all(running)
      await deps.write((trx) => releaseInFlight(trx, clock.now()))
      waiting.clear()
      waitingCount = 0
    },
    /** Once started, runs rounds until one starts nothing and nothing is in flight: for tests. */
    async drain() {
      for (;;) {
        wake({ fresh: true })
        await pump.idle()
        if (running.size === 0) return
        await Promise.all(running)
      }
    },
  }
}

export type DeliveryLoop = ReturnType<typeof createDeliveryLoop>
