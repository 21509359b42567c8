import { joinCluster, type Wakers } from '../cluster/join-cluster.ts'
import type { DeliveryParts } from './delivery-wiring.ts'
import type { DnsParts } from './dns-wiring.ts'
import type { SchedulerParts } from './scheduler-wiring.ts'
import { runs, type SharedParts } from './shared-parts.ts'

/**
 * This process among those sharing the database. Singletons run in one process at a time, the one
 * holding their lease. Loops are woken when rows of their work table wait: written by this process
 * (once committed: `wakers` is the writer's, see wireDatabase), queued by another process, or given
 * back after a lease ran out.
 */
export function wireCluster(parts: SharedParts, wakers: Wakers, dns: DnsParts, delivery: DeliveryParts, schedulers: SchedulerParts) {
  const { config, db, clock, logger, claimant } = parts
  const { deliveries } = delivery
  const { memberships, pruner, guardrails, webhooks, workflows, imports, campaigns } = schedulers
  const own: Wakers = {
    ...(runs(config, 'delivery') && { deliveries: (projects) => deliveries.queued(projects) }),
    ...(runs(config, 'scheduler') && {
      webhook_deliveries: () => webhooks.wake(),
      workflow_executions: () => workflows.wake(),
      contact_imports: () => imports.queued(),
      campaigns: () => campaigns.wake(),
    }),
  }
  Object.assign(wakers, own)
  const cluster = joinCluster(
    { databaseUrl: config.databaseUrl, db, clock, logger, claimant },
    { 'domain-checker': dns.checker, 'membership-tracker': memberships, 'body-pruner': pruner, 'guardrail-monitor': guardrails },
    wakers,
  )
  const { singletons } = cluster
  /** The loops the scheduler role runs (started in this order; delivery and its MTA-STS cache are the delivery role's). */
  const schedulerLoops = [singletons['domain-checker'], imports, campaigns, workflows, webhooks, singletons['membership-tracker'], singletons['body-pruner'], singletons['guardrail-monitor']]
  return { cluster, schedulerLoops }
}
