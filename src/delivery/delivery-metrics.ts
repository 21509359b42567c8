import { countPendingDeliveries, type Delivery } from '../core/queue/index.ts'
import type { Db, DeliveryState } from '../db/schema.ts'
import { boundedLabel, type Registry } from '../lib/metrics.ts'
import type { Settlement } from './attempt.ts'

/** Destination domains named in labels; every later one is counted as `other`. */
export const DOMAIN_LABELS = 100
/**
 * Waiting deliveries one scrape counts at most: about 25 ms of SQLite on a small machine. A deeper
 * queue reads as this many in all (split among its states), which still says "deep".
 */
export const QUEUE_COUNT_CAP = 100_000

/** An attempt ends in milliseconds (an answer from a near server) or minutes (a silent one). */
const ATTEMPT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
/** A due delivery starts at once, or waits for its domain's, its project's or the loop's slots. */
const WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400]

/**
 * What the delivery loop records as it settles attempts: outcomes by destination domain, how long
 * attempts take, and how long due deliveries wait for one.
 */
export function deliveryMetrics(registry: Registry) {
  const settled = registry.counter({
    name: 'mailstead_deliveries_settled_total',
    help: `Delivery attempts settled, by outcome and destination domain (the first ${DOMAIN_LABELS} domains seen; then "other")`,
    labelNames: ['outcome', 'domain'],
  })
  const duration = registry.histogram({
    name: 'mailstead_delivery_duration_seconds',
    help: 'Seconds from the start of a delivery attempt to its outcome (the reply of the remote server, or why there was none)',
    labelNames: ['outcome'],
    buckets: ATTEMPT_BUCKETS,
  })
  const wait = registry.histogram({
    name: 'mailstead_delivery_queue_wait_seconds',
    help: 'Seconds a delivery waited in the queue between coming due (queued, scheduled time, retry time) and its attempt',
    buckets: WAIT_BUCKETS,
  })
  const domainOf = boundedLabel(DOMAIN_LABELS)
  return {
    /** An attempt's outcome was recorded; it took `seconds` of real time. */
    settled(delivery: Delivery, outcome: Settlement, seconds: number) {
      settled.inc({ outcome: outcome.kind, domain: domainOf(delivery.recipient_domain) })
      duration.observe({ outcome: outcome.kind }, seconds)
      wait.observe({}, Math.max(0, outcome.data.startedAt - delivery.next_attempt_at) / 1000)
    },
  }
}

export type DeliveryMetrics = ReturnType<typeof deliveryMetrics>

/** States a delivery can still leave, as the gauge shows them. */
const PENDING: readonly DeliveryState[] = ['scheduled', 'queued', 'deferred', 'paused', 'sending']

/**
 * The queue's depth by state, read at each scrape in one statement that reads only the partial
 * indexes of waiting and paused rows, never the history of settled ones, and at most
 * QUEUE_COUNT_CAP waiting rows (and as many paused ones). `sending` rows have no index: the loop
 * that claimed them counts them.
 */
export function queueDepthMetric(registry: Registry, db: Db, claimed: () => number) {
  registry.gauge({
    name: 'mailstead_deliveries',
    help: `Deliveries in the queue by state (scheduled, queued, deferred, paused; sending: claimed by the delivery loop); scheduled, queued and deferred together counted up to ${QUEUE_COUNT_CAP}`,
    labelNames: ['state'],
    async collect(gauge) {
      const rows = await countPendingDeliveries(db, QUEUE_COUNT_CAP)
      for (const state of PENDING) gauge.set({ state }, 0)
      for (const row of rows) gauge.set({ state: row.state }, Number(row.count))
      gauge.set({ state: 'sending' }, claimed())
    },
  })
}
