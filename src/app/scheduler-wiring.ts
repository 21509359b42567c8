import { createBodyPruner } from '../core/emails/pruner.ts'
import { guardrailSettingsOf } from '../core/guardrails/guard.ts'
import { createGuardrailMonitor } from '../core/guardrails/monitor.ts'
import { createDeliveryCaller } from '../core/webhooks/caller.ts'
import { createWebhookCaller } from '../core/workflows/webhook-caller.ts'
import { signingSecretOf } from '../core/workflows/workflows.service.ts'
import { hostAddresses } from '../dns/host-addresses.ts'
import { linkSettingsOf, sendSettingsOf } from '../settings-of.ts'
import { createCampaignSender } from '../workers/campaign-sender.ts'
import { createImportRunner } from '../workers/import-runner.ts'
import { createMembershipTracker } from '../workers/membership-tracker.ts'
import { createWebhookDispatcher } from '../workers/webhook-dispatcher.ts'
import { createWorkflowEngine } from '../workers/workflow-runner.ts'
import type { DeliveryParts } from './delivery-wiring.ts'
import type { SharedParts } from './shared-parts.ts'

/**
 * The campaign sender's tuning. Sending or scheduling a campaign wakes it; the poll finds campaigns
 * whose time came and batches the queue has room for since. The chunks bound one transaction of
 * the writer: an audience member read is one row, a recipient handed to the queue writes several.
 */
const CAMPAIGN_TUNING = { pollMs: 250, listChunk: 5000, handChunk: 1000 }

/**
 * The workflow engine's tuning: runs under way at once (a step waits mostly on the writer or on a
 * webhook call, so many share the process), and how often it looks for events other processes
 * tracked and runs whose wait is over.
 */
const WORKFLOW_TUNING = { concurrency: 32, pollMs: 250 }

/**
 * The webhook dispatcher's tuning: calls under way at once in all, and to one endpoint; fewer to an
 * endpoint whose last call failed, so that a dead or hanging one cannot take the others' places.
 * The poll finds retries that came due; finished deliveries are kept a month for the API.
 */
const WEBHOOK_TUNING = { concurrency: 32, perWebhook: 8, perFailingWebhook: 2, pollMs: 1000, keepFinishedMs: 30 * 86_400_000 }

/**
 * The loops of the scheduler role: campaigns, workflows, contact imports and webhook deliveries,
 * and the singletons that track segment membership, watch the guardrails and prune old bodies.
 * One call constructs each loop.
 */
export function wireSchedulers(parts: SharedParts, delivery: DeliveryParts) {
  const { config, db, write, resolver, clock, logger, claimant } = parts
  const { work } = delivery
  const sendSettings = sendSettingsOf(config)
  const guardrailSettings = guardrailSettingsOf(config)
  const webhookTargets = { allowPrivate: config.webhookAllowPrivateTargets, resolve: hostAddresses(resolver) }
  const memberships = createMembershipTracker({ db, write, clock, logger })
  const campaigns = createCampaignSender({
    db,
    write,
    clock,
    logger,
    settings: { ...CAMPAIGN_TUNING, maxAgeMs: sendSettings.maxAgeMs, guardrails: guardrailSettings },
    claimant,
  })
  const workflows = createWorkflowEngine({
    db,
    write,
    clock,
    logger,
    build: work.build,
    links: linkSettingsOf(config),
    sendSettings,
    call: createWebhookCaller({ allowPrivate: config.webhookAllowPrivateTargets, resolve: hostAddresses(resolver) }),
    signingSecret: (workflow) => signingSecretOf(config.secret, workflow),
    ...WORKFLOW_TUNING,
    claimant,
  })
  const imports = createImportRunner({ db, write, clock, logger, dataDir: config.dataDir, claimant })
  const guardrails = createGuardrailMonitor({ db, write, clock, logger, settings: guardrailSettings })
  const pruner = createBodyPruner({ db, write, clock, logger, retentionDays: config.retentionDays })
  const webhooks = createWebhookDispatcher({
    db,
    write,
    clock,
    logger,
    serverSecret: config.secret,
    call: createDeliveryCaller(webhookTargets),
    settings: WEBHOOK_TUNING,
    claimant,
  })
  return { webhookTargets, memberships, campaigns, workflows, imports, guardrails, pruner, webhooks }
}

export type SchedulerParts = ReturnType<typeof wireSchedulers>
