import type { Db } from '../db/schema.ts'
import type { WriteOptions } from '../db/writer.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'
import { TtlCache } from '../lib/ttl-cache.ts'
import { deliveryMetrics, queueDepthMetric } from '../delivery/delivery-metrics.ts'
import type { Claiming } from '../db/claims.ts'
import { createWorker } from '../cluster/worker.ts'
import { createOutcomeRecorder } from '../delivery/outcomes.ts'
import { claimDue, holdDeliveries } from '../core/queue/index.ts'
import { sendRateOf } from '../core/projects/index.ts'
import type { Delivery, Settlement } from '../delivery/attempt.ts'
import type { Shaper } from '../delivery/sites/shaper.ts'
import type { SiteResolver } from '../delivery/sites/site-resolver.ts'
import { SANDBOX_SITE } from '../delivery/sites/site-of.ts'
import type { SiteLimits } from '../delivery/sites/rules.ts'
import { loadSites as loadSitesOf, mapDomains, saveSites } from '../delivery/sites/sites.repository.ts'

export interface LoopSettings {
  /** Attempts in flight at once, in all. */
  concurrency: number
  /** Deliveries claimed for one destination domain at a time are a few times this. */
  perDomain: number
  /** Emails per second per project, unless the project says otherwise. */
  ratePerSecond: number
  /** How often to look for deliveries that have come due without anyone waking the loop. */
  pollMs: number
}

/** Each project's send rate, shared by every process on the database (src/cluster/shared-bucket.ts). */
export interface SendRate {
  /** Whether the project has a token to spend now, taking some from its bucket if this process has none. */
  ready(projectId: number, rate: number): Promise<boolean>
  /** Spends a token `ready` said is there; false when its second has passed since. */
  take(projectId: number): boolean
  /** The projects refused lately: none has a token before its bucket refills. */
  starved(): number[]
}

export interface LoopDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>, options?: WriteOptions) => Promise<T>
  clock: Clock
  logger: Logger
  attempt: (delivery: Delivery, limits: { messagesPerConnection?: number }) => Promise<Settlement>
  settings: LoopSettings
  metrics: Registry
  /** Which site each destination domain's mail goes to. */
  sites: SiteResolver
  /** Each site's limits, throttles, suspensions and warm-up. */
  shaper: Shaper
  /** This process, as its claims of deliveries name it. */
  claimant: Claiming
  sendRate: SendRate
}

/** Claimed deliveries held in memory per destination, as a multiple of its in-flight limit. */
const BUFFER_PER_DOMAIN = 4
/** Claimed deliveries held in memory in all. */
const BUFFER_TOTAL = 1000
/** After a claim found nothing, new mail alone triggers another only after this long (real time). */
const EMPTY_CLAIM_PAUSE_MS = 50
/** How often the sites' shaping state is written down (real time). */
const FLUSH_SITES_MS = 2000

/**
 * The delivery loop. Due deliveries are claimed from the queue into a buffer (a few times a
 * domain's share, so one claim feeds many attempts), placed by the site their domain's MX hosts
 * are, and started as the limits allow: in all, per site (its connections and its rate, as the
 * shaper says), and per project (a token bucket refilled at the project's rate, shared with the
 * other processes on the database). A site that is
 * suspended or at its warm-up cap holds its mail back in the queue until it may go. One slow
 * destination fills only its own slots and its own buffer.
 */
export function createDeliveryLoop(deps: LoopDeps) {
  const { settings, clock, logger, shaper } = deps
  /** Deliveries ready to start, by site. */
  const waiting = new Map<string, Delivery[]>()
  /** Deliveries whose domain's site is being looked up, by domain. */
  const unplaced = new Map<string, Delivery[]>()
  /** Buffered deliveries (waiting or unplaced) by destination domain: what a claim skips. */
  const buffered = new Map<string, number>()
  const active = new Map<string, number>()
  /** Domains whose site holds its mail, until when (the clock's time). */
  const heldDomains = new Map<string, number>()
  /** Domains whose site was found since the last flush. */
  const foundDomains: Array<{ domain: string; site: string }> = []
  const rates = new TtlCache<number>(clock, 30_000)
  let activeCount = 0
  let waitingCount = 0
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
  const outcomes = createOutcomeRecorder({ write: deps.write, clock, logger, metrics: deliveryMetrics(deps.metrics), letGo: (ids) => worker.letGo(ids) })
  // Claimed rows are `sending` until settled, whether still buffered or in flight.
  queueDepthMetric(deps.metrics, deps.db, () => waitingCount + activeCount)

  /** Destinations with a round of attempts still in the buffer: a claim skips them until it runs low. */
  const stockedDomains = () => [...buffered.keys()].filter((domain) => buffered.get(domain)! >= settings.perDomain)

  const countBuffered = (domain: string, change: number) => {
    const count = (buffered.get(domain) ?? 0) + change
    if (count <= 0) buffered.delete(domain)
    else buffered.set(domain, count)
  }

  async function rateOf(projectId: number): Promise<number> {
    const known = rates.get(String(projectId))
    if (known !== undefined) return known
    const rate = (await sendRateOf(deps.db, projectId)) ?? settings.ratePerSecond
    rates.set(String(projectId), rate)
    return rate
  }

  /** Whether a token of the project's send rate is there (without spending it). */
  const hasToken = async (projectId: number) => deps.sendRate.ready(projectId, await rateOf(projectId))

  /** Claims what the buffer has room for; answers whether it filled it (there may be more). */
  async function fill(): Promise<boolean> {
    const free = BUFFER_TOTAL - waitingCount
    if (free <= 0 || !worker.taking) return false
    const starved = deps.sendRate.starved()
    const skip = { domains: [...stockedDomains(), ...heldNow()], projects: starved }
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
    const claimed = await worker.claim((trx, claimant) => claimDue(trx, claimant, clock.now(), free, settings.perDomain * BUFFER_PER_DOMAIN, skip), (delivery) => delivery.id)
    emptyUnder = claimed.length === 0 ? limits : undefined
    emptyAt = Date.now()
    waitingCount += claimed.length
    for (const delivery of claimed) place(delivery)
    return claimed.length === free
  }

  /** Puts a claimed delivery with its site's, once the site of its domain is known. */
  function place(delivery: Delivery) {
    const domain = delivery.recipient_domain
    countBuffered(domain, 1)
    // Sandbox mail goes to the simulator: no MX is looked up for it.
    const site = delivery.sandbox === 1 ? SANDBOX_SITE : deps.sites.cached(domain)
    if (site) return ready(shaper.know(site), delivery)
    const list = unplaced.get(domain)
    if (list) return list.push(delivery)
    unplaced.set(domain, [delivery])
    const lookup = deps.sites.resolve(domain).then((found) => {
      const name = shaper.know(found)
      foundDomains.push({ domain, site: name })
      for (const each of unplaced.get(domain) ?? []) ready(name, each)
      unplaced.delete(domain)
      wake()
    })
    worker.track(lookup)
  }

  function ready(site: string, delivery: Delivery) {
    const list = waiting.get(site)
    if (list) list.push(delivery)
    else waiting.set(site, [delivery])
  }

  async function startReady() {
    // A project found without a token stays without one for the rest of the round: its buffered
    // deliveries are passed over without asking again for each.
    const starved = new Set<number>()
    const projectReady = async (projectId: number) => {
      if (starved.has(projectId)) return false
      if (await hasToken(projectId)) return true
      starved.add(projectId)
      return false
    }
    for (const [site, list] of waiting) {
      const limits = shaper.limits(site)
      while (list.length > 0 && (active.get(site) ?? 0) < limits.connections && activeCount < settings.concurrency) {
        // Asked before each start: the attempt just started may be the day's last under warm-up.
        const hold = shaper.hold(site)
        if (hold) {
          holdBack(list.splice(0), hold)
          break
        }
        let index = -1
        for (let i = 0; i < list.length && index < 0; i++) if (await projectReady(list[i]!.project_id)) index = i
        if (index < 0 || !shaper.take(site, limits)) break
        const [delivery] = list.splice(index, 1)
        // The token's second ended since it was found there (rarely): the delivery waits for another.
        if (!deps.sendRate.take(delivery!.project_id)) {
          list.splice(index, 0, delivery!)
          starved.add(delivery!.project_id)
          continue
        }
        start(delivery!, site, limits)
      }
      if (list.length === 0) waiting.delete(site)
    }
  }

  /**
   * Deliveries whose site holds its mail back: to the queue again, until the site may take them.
   * Their domains are not claimed again meanwhile.
   */
  function holdBack(deliveries: Delivery[], hold: { until: number; category: string; reason: string }) {
    waitingCount -= deliveries.length
    for (const delivery of deliveries) {
      countBuffered(delivery.recipient_domain, -1)
      heldDomains.set(delivery.recipient_domain, hold.until)
    }
    const now = clock.now()
    const ids = deliveries.map((delivery) => delivery.id)
    const writing = deps
      .write((trx) => holdDeliveries(trx, deps.claimant.owner, ids, hold.until, hold.reason, now))
      .then(() => logger.info(`DEFERRED[${hold.category}]`, `${deliveries.length} messages wait until ${new Date(hold.until).toISOString()}: ${hold.reason}`))
      .catch((error) => logger.error('QUEUE', 'could not hold deliveries back', { error: String(error) }))
      // Held back, or not: if the write failed, their leases run out and they wait again.
      .finally(() => worker.letGo(ids))
    worker.track(writing)
  }

  /** Destination domains whose site holds its mail until a time still to come: a claim skips them. */
  function heldNow(): string[] {
    const now = clock.now()
    for (const [domain, until] of heldDomains) if (until <= now) heldDomains.delete(domain)
    return [...heldDomains.keys()]
  }

  function start(delivery: Delivery, site: string, limits: SiteLimits) {
    waitingCount--
    countBuffered(delivery.recipient_domain, -1)
    activeCount++
    active.set(site, (active.get(site) ?? 0) + 1)
    let released = false
    // The slot is the connection's: it is free once the server has answered, before the outcome is written.
    const release = () => {
      if (released) return
      released = true
      activeCount--
      const left = active.get(site)! - 1
      if (left === 0) active.delete(site)
      else active.set(site, left)
      wake()
    }
    worker.track(deliver(delivery, site, limits, release).finally(release))
  }

  async function deliver(delivery: Delivery, site: string, limits: SiteLimits, release: () => void) {
    const began = performance.now()
    let outcome: Settlement
    try {
      outcome = shaped(site, await deps.attempt(delivery, { messagesPerConnection: limits.messagesPerConnection }))
    } catch (error) {
      outcome = outcomes.unattempted(delivery, error)
    }
    const seconds = (performance.now() - began) / 1000
    release()
    await outcomes.record(delivery, outcome, seconds)
  }

  /**
   * What the site's reply means for it (a throttle, a suspension) and for the message: a reply
   * that suspends its site defers the message until the suspension ends, never bounces it.
   */
  function shaped(site: string, outcome: Settlement): Settlement {
    if (outcome.kind === 'delivered') shaper.delivered(site)
    const reply = outcome.data.reply
    if (!reply || shaper.observe(site, reply) !== 'suspend') return outcome
    if (outcome.kind !== 'bounced' && outcome.kind !== 'deferred') return outcome
    const until = shaper.hold(site)?.until ?? clock.now()
    return { kind: 'deferred', data: outcome.data, nextAttemptAt: until, category: 'suspended', held: true }
  }

  /** Writes down what changed in the sites' shaping state, and the sites new domains were found to be. */
  async function flushSites() {
    const rows = shaper.flush()
    const domains = foundDomains.splice(0)
    if (rows.length === 0 && domains.length === 0) return
    try {
      await deps.write(async (trx) => {
        await saveSites(trx, rows)
        await mapDomains(trx, domains, clock.now())
      })
    } catch (error) {
      logger.error('QUEUE', 'could not record the sites\' state', { error: String(error) })
    }
  }

  /** A round of claiming and starting; answers whether another should follow at once. */
  async function round(): Promise<boolean> {
    try {
      await outcomes.recordLeftovers()
      const full = await fill()
      await startReady()
      return full
    } catch (error) {
      logger.error('QUEUE', 'delivery round failed', { error: String(error) })
      return false
    }
  }

  const worker = createWorker(
    {
      tag: 'QUEUE',
      failed: 'delivery round failed',
      round,
      timers: [
        // Passing time may have made deliveries due that no one woke the loop for.
        { everyMs: settings.pollMs, run: () => wake({ fresh: true }) },
        { everyMs: FLUSH_SITES_MS, run: () => void flushSites() },
      ],
      finish: () => outcomes.recordLeftovers().catch((error) => logger.error('QUEUE', 'outcomes left unrecorded at stop', { error: String(error) })),
      claims: { table: 'deliveries', claimant: deps.claimant },
    },
    deps,
  )

  /**
   * Runs a round; a wake during a round asks for another. `fresh` says that new mail was queued
   * or time has passed, so a claim may find what the last one could not.
   */
  function wake(options: { fresh?: boolean } = {}) {
    if (options.fresh) fresh = true
    worker.wake()
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
    /** Writes the sites' shaping state now (it is written every few seconds anyway). */
    flushSites,
    async start() {
      shaper.restore(await loadSitesOf(deps.db))
      fresh = true
      worker.start()
    },
    /** Stops claiming; waits for attempts in flight; hands the claimed ones not started back to the queue. */
    async stop() {
      clearTimeout(retry)
      await worker.stop()
      await flushSites()
      waiting.clear()
      unplaced.clear()
      buffered.clear()
      waitingCount = 0
    },
    /** Once started, runs rounds until one starts nothing and nothing is in flight: for tests. */
    async drain() {
      for (;;) {
        wake({ fresh: true })
        await worker.idle()
        if (!worker.busy) return flushSites()
        await worker.settle()
      }
    },
  }
}

export type DeliveryLoop = ReturnType<typeof createDeliveryLoop>
