import type { Db } from '../db/schema.ts'
import type { WriteOptions } from '../db/writer.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'
import { deliveryMetrics, queueDepthMetric } from '../delivery/delivery-metrics.ts'
import type { Claiming } from '../db/claims.ts'
import { createWorker } from '../cluster/worker.ts'
import { createOutcomeRecorder, type OutcomeRecorder } from '../delivery/outcomes.ts'
import { claimDue } from '../core/queue/index.ts'
import { sendRateOf } from '../core/projects/index.ts'
import type { Delivery, Settlement } from '../delivery/attempt.ts'
import type { Shaper } from '../delivery/sites/shaper.ts'
import type { SiteResolver } from '../delivery/sites/site-resolver.ts'
import type { SiteLimits } from '../delivery/sites/rules.ts'
import { SiteQueues } from '../delivery/sites/site-queues.ts'
import { createShapingBookkeeping, type ShapingBookkeeping } from '../delivery/sites/shaping-bookkeeping.ts'
import { createClaimPacing } from './claim-pacing.ts'
import { createProjectTokens, type ProjectTokens, type SendRate } from './project-tokens.ts'

export type { SendRate }

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
 * are (src/delivery/sites/site-queues.ts), and started as the limits allow: in all, per site (its
 * connections and its rate, as the shaper says), and per project (a token bucket refilled at the
 * project's rate, shared with the other processes on the database). A site that is suspended or
 * at its warm-up cap holds its mail back in the queue until it may go. One slow destination fills
 * only its own slots and its own buffer. Each attempt's outcome is told to its site's shaping
 * (src/delivery/sites/shaping-bookkeeping.ts), then settled in the queue.
 */
export function createDeliveryLoop(deps: LoopDeps) {
  const { settings, clock, logger, shaper } = deps
  const book = createShapingBookkeeping({ db: deps.db, write: deps.write, clock, logger, shaper })
  const queues = new SiteQueues({ sites: deps.sites, know: (site) => shaper.know(site), found: book.found, track: (work) => worker.track(work), wake: () => wake() })
  const tokens = createProjectTokens({ sendRate: deps.sendRate, rateOf: (projectId) => sendRateOf(deps.db, projectId), defaultRate: settings.ratePerSecond, clock })
  const pacing = createClaimPacing({ pauseMs: EMPTY_CLAIM_PAUSE_MS, wake: () => wake() })
  const outcomes = createOutcomeRecorder({ write: deps.write, clock, logger, metrics: deliveryMetrics(deps.metrics), letGo: (ids) => worker.letGo(ids) })
  const parts: LoopParts = { deps, queues, tokens, book, outcomes, track: (work) => worker.track(work) }
  // Claimed rows are `sending` until settled, whether still buffered or in flight.
  queueDepthMetric(deps.metrics, deps.db, () => queues.buffered + queues.active)

  /** Claims what the buffer has room for; answers whether it filled it (there may be more). */
  async function claim(): Promise<boolean> {
    const free = BUFFER_TOTAL - queues.buffered
    if (free <= 0 || !worker.taking) return false
    const skip = { domains: queues.skippedDomains(settings.perDomain, clock.now()), projects: tokens.starved() }
    const limits = JSON.stringify(skip)
    if (!pacing.mayClaim(limits, skip.projects)) return false
    const claimed = await worker.claim((trx, claimant) => claimDue(trx, claimant, clock.now(), free, settings.perDomain * BUFFER_PER_DOMAIN, skip), (delivery) => delivery.id)
    pacing.claimed(limits, claimed.length)
    for (const delivery of claimed) queues.add(delivery)
    return claimed.length === free
  }

  /** A round of settling what was left, claiming and starting; answers whether another should follow at once. */
  async function round(): Promise<boolean> {
    try {
      await outcomes.recordLeftovers()
      const full = await claim()
      await dispatch(parts)
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
        { everyMs: FLUSH_SITES_MS, run: () => void book.flush() },
      ],
      finish: () => outcomes.recordLeftovers().catch((error) => logger.error('QUEUE', 'outcomes left unrecorded at stop', { error: String(error) })),
      claims: { table: 'deliveries', claimant: deps.claimant },
    },
    deps,
  )

  /** Runs a round; a wake during a round asks for another. `fresh`: time has passed, a claim may find what the last could not. */
  function wake(options: { fresh?: boolean } = {}) {
    if (options.fresh) pacing.fresh()
    worker.wake()
  }

  return {
    wake,
    /**
     * Mail was queued (for these projects, if said): a claim may find it, at the latest after a
     * short pause. Called by the writer's wake hook once the write committed, and by other
     * processes' announcements.
     */
    queued(projects?: ReadonlySet<number> | null) {
      pacing.queued(projects)
      wake()
    },
    /** Writes the sites' shaping state now (it is written every few seconds anyway). */
    flushSites: book.flush,
    async start() {
      await book.restore()
      pacing.fresh()
      worker.start()
    },
    /** Stops claiming; waits for attempts in flight; hands the claimed ones not started back to the queue. */
    async stop() {
      pacing.stop()
      await worker.stop()
      await book.flush()
      queues.clear()
    },
    /** Once started, runs rounds until one starts nothing and nothing is in flight: for tests. */
    async drain() {
      for (;;) {
        wake({ fresh: true })
        await worker.idle()
        if (!worker.busy) return book.flush()
        await worker.settle()
      }
    },
  }
}

export type DeliveryLoop = ReturnType<typeof createDeliveryLoop>

/** What the loop's rounds work with, besides the worker. */
interface LoopParts {
  deps: LoopDeps
  /** The claimed deliveries not started yet, by site, and the attempts in flight. */
  queues: SiteQueues
  tokens: ProjectTokens
  book: ShapingBookkeeping
  outcomes: OutcomeRecorder
  /** Work under way that a stop waits for. */
  track: (work: Promise<unknown>) => void
}

/**
 * Starts, site by site, what the limits allow: the loop's concurrency, the site's connections and
 * rate (or, when the site holds its mail back, gives its deliveries back to the queue), and the
 * projects' tokens.
 */
async function dispatch(parts: LoopParts): Promise<void> {
  const { deps, queues } = parts
  const { shaper } = deps
  const round = parts.tokens.round()
  for (const site of queues.sites()) {
    const limits = shaper.limits(site)
    while (queues.hasRoom(site, limits.connections, deps.settings.concurrency)) {
      // Asked before each start: the attempt just started may be the day's last under warm-up.
      const hold = shaper.hold(site)
      if (hold) {
        parts.track(parts.outcomes.holdBack(deps.claimant.owner, queues.holdBack(site, hold.until), hold))
        break
      }
      const index = await queues.firstReady(site, round.ready)
      if (index < 0 || !shaper.take(site, limits)) break
      // The token's second ended since it was found there (rarely): the delivery waits for another.
      if (!round.take(queues.at(site, index).project_id)) continue
      const { delivery, release } = queues.start(site, index)
      parts.track(attempt(parts, delivery, site, limits, release).finally(release))
    }
    queues.tidy(site)
  }
}

/**
 * One attempt at `site`: its outcome, as the site's shaping reads it, settled in the queue. The
 * attempt's slot (the connection's) is free at `release`, once the server has answered, before
 * the outcome is written.
 */
async function attempt(parts: LoopParts, delivery: Delivery, site: string, limits: SiteLimits, release: () => void): Promise<void> {
  const began = performance.now()
  let outcome: Settlement
  try {
    outcome = parts.book.outcome(site, await parts.deps.attempt(delivery, { messagesPerConnection: limits.messagesPerConnection }))
  } catch (error) {
    outcome = parts.outcomes.unattempted(delivery, error)
  }
  const seconds = (performance.now() - began) / 1000
  release()
  await parts.outcomes.record(delivery, outcome, seconds)
}
