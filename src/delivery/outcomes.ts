import { isUnavailable } from '../db/database-error.ts'
import type { Db } from '../db/schema.ts'
import type { WriteOptions } from '../db/writer.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import type { DeliveryMetrics } from './delivery-metrics.ts'
import { holdDeliveries, settle } from '../core/queue/index.ts'
import type { Delivery, Settlement } from './attempt.ts'

const LOG_TAGS: Record<Settlement['kind'], (s: Settlement) => string> = {
  delivered: () => 'DELIVERED',
  deferred: (s) => `DEFERRED[${(s as { category: string }).category}]`,
  bounced: (s) => `BOUNCED[${(s as { category: string }).category}]`,
  failed: () => 'FAILED',
  suppressed: () => 'SUPPRESSED',
  held: () => 'HELD[project-disabled]',
}

/** Why a site's mail waits, and until when (the shaper's `hold`). */
export interface SiteHold {
  until: number
  category: string
  reason: string
}

/** How long a delivery's outcome waits for others to commit with it (real time). */
const SETTLE_GATHER_MS = 10
/** How long a delivery waits when the database did not answer during its attempt. */
const DATABASE_RETRY_MS = 5000

export interface OutcomeDeps {
  write: <T>(work: (trx: Db) => Promise<T>, options?: WriteOptions) => Promise<T>
  clock: Clock
  logger: Logger
  metrics: DeliveryMetrics
  /** The deliveries' outcomes are written: the loop no longer holds them. */
  letGo: (ids: number[]) => void
}

/**
 * Records the delivery loop's outcomes: each committed with those that arrive within a few ms,
 * counted and logged. An outcome the database does not take (it is restarting) is kept, still
 * claimed and held by this process, and recorded at a later round rather than attempted a second
 * time.
 */
export function createOutcomeRecorder(deps: OutcomeDeps) {
  const { clock, logger } = deps
  const unsettled: Array<{ delivery: Delivery; outcome: Settlement }> = []

  async function record(delivery: Delivery, outcome: Settlement, seconds: number): Promise<void> {
    try {
      await deps.write((trx) => settle(trx, delivery, outcome, clock.now()), { gatherMs: SETTLE_GATHER_MS })
    } catch (error) {
      logger.error('QUEUE', 'could not record an outcome; it is recorded again later', { deliveryId: delivery.id, error: String(error) })
      unsettled.push({ delivery, outcome })
      return
    }
    deps.letGo([delivery.id])
    deps.metrics.settled(delivery, outcome, seconds)
    const level = outcome.kind === 'delivered' || outcome.kind === 'deferred' ? 'info' : 'warn'
    logger[level](LOG_TAGS[outcome.kind](outcome), delivery.recipient, {
      deliveryId: delivery.id,
      emailId: delivery.email_id,
      mx: outcome.data.mx,
      // A deferral's reason is what happened to each host and address: all of it.
      response: outcome.kind === 'deferred' ? outcome.data.response : outcome.data.response?.slice(0, 200),
    })
    await followUp(outcome)
  }

  /** What follows a recorded outcome (a sandbox complaint's report); its failure is logged, never the outcome's. */
  async function followUp(outcome: Settlement): Promise<void> {
    if (outcome.kind !== 'delivered' || !outcome.afterwards) return
    await outcome.afterwards().catch((error) => logger.error('QUEUE', 'what follows an outcome failed', { error: String(error) }))
  }

  /** Records the outcomes that the database did not take when they came. */
  async function recordLeftovers(): Promise<void> {
    const left = unsettled.splice(0)
    if (left.length === 0) return
    try {
      await deps.write(async (trx) => {
        for (const { delivery, outcome } of left) await settle(trx, delivery, outcome, clock.now())
      })
      deps.letGo(left.map(({ delivery }) => delivery.id))
      for (const { outcome } of left) await followUp(outcome)
      logger.info('QUEUE', 'outcomes recorded late, once the database answered', { count: left.length })
    } catch (error) {
      unsettled.unshift(...left)
      throw error
    }
  }

  /**
   * The outcome of an attempt that threw before it had one. The database not answering
   * (PostgreSQL restarting) is no fault of the message: it waits a moment, unaged, and is tried
   * again. Anything else is a fault here, and the message fails rather than meet it at every retry.
   */
  function unattempted(delivery: Delivery, error: unknown): Settlement {
    const data = { startedAt: clock.now() }
    if (isUnavailable(error)) {
      logger.warn('DEFERRED[database]', 'the database did not answer during an attempt; it is tried again', { deliveryId: delivery.id, error: String(error) })
      const response = `The database did not answer: ${(error as Error)?.message ?? error}`
      return { kind: 'deferred', data: { ...data, response }, nextAttemptAt: data.startedAt + DATABASE_RETRY_MS, category: 'database', held: true }
    }
    logger.error('FAILED', 'attempt failed unexpectedly', { deliveryId: delivery.id, error: String((error as Error)?.stack ?? error) })
    return { kind: 'failed', data, reason: 'Internal error' }
  }

  /**
   * Deliveries whose site holds its mail back (suspended, or at its warm-up cap), never attempted:
   * to the queue again until `hold.until`, and let go. If the write fails, their leases run out
   * and they wait again all the same.
   */
  function holdBack(owner: string, deliveries: readonly Delivery[], hold: SiteHold): Promise<void> {
    const ids = deliveries.map((delivery) => delivery.id)
    const now = clock.now()
    return deps
      .write((trx) => holdDeliveries(trx, owner, ids, hold.until, hold.reason, now))
      .then(() => logger.info(`DEFERRED[${hold.category}]`, `${deliveries.length} messages wait until ${new Date(hold.until).toISOString()}: ${hold.reason}`))
      .catch((error) => logger.error('QUEUE', 'could not hold deliveries back', { error: String(error) }))
      .finally(() => deps.letGo(ids))
  }

  return { record, recordLeftovers, unattempted, holdBack }
}
export type OutcomeRecorder = ReturnType<typeof createOutcomeRecorder>
