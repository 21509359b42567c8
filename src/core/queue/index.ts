/*
 * The delivery queue's surface: one `deliveries` row per recipient of each email, from queued to
 * settled. Other modules use the queue through this file only, never through its repository:
 * - queue.repository.ts: every statement that writes `deliveries` (inserting, claiming, holding,
 *   releasing, moving a campaign's or a project's mail, retrying, cancelling);
 * - settle.ts: what an attempt's outcome writes;
 * - admin.ts: the queue as operators see it (counted, listed, retried, cancelled);
 * - read-models.ts: what shaping, forecasts and metrics read of it;
 * - delivery-queries.ts: the fragments and lookups other entities' queries read deliveries with.
 */

export { cancelDelivery, decodeQueueCursor, encodeQueueCursor, listQueue, PENDING_STATES, queueStats, retryDeliveries, toQueued, type MessageLost, type QueueScope } from './admin.ts'
export {
  claimDue,
  deleteDeliveriesOf,
  holdDeliveries,
  holdProjectMail,
  insertDeliveries,
  insertManyDeliveries,
  markBounced,
  moveCampaignDeliveries,
  PROJECT_DISABLED_HOLD,
  releaseProjectMail,
  setDeliveriesOf,
  type CampaignEmails,
  type DeliveryRow,
  type NewDelivery,
} from './queue.repository.ts'
export { deliveriesByIds, deliveriesOf, deliveryRows, deliveryTimesOf, findDelivery, hasCampaignDeliveries, hasPendingDelivery, hasSandboxDelivery } from './delivery-queries.ts'
export { countPendingDeliveries, pendingByDomain, waitingDomains, type EmailIds } from './read-models.ts'
export { settle, type AttemptRecord, type Delivery, type MtaStsOutcome, type Settlement, type TlsDetails } from './settle.ts'
