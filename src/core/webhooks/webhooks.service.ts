import type { Db } from '../../db/schema.ts'
import { conflict, invalid, notFound } from '../../lib/errors.ts'
import { newId, randomToken } from '../../lib/ids.ts'
import { checkTarget, type TargetOptions } from '../../lib/outbound/target.ts'
import { seal, unseal } from '../../lib/sealed.ts'
import { findDelivery, pageDeliveries, pauseDeliveries, replayFinished, resumeDeliveries } from './webhook-deliveries.repository.ts'
import { rowsWait } from '../../db/writer.ts'
import { checkEvents } from './event-types.ts'
import { toDelivery, toWebhook } from './webhook-view.ts'
import * as repo from './webhooks.repository.ts'

/** A URL that checkUrl passed. */
export type CheckedUrl = string & { readonly checked: unique symbol }

export interface WebhookInput {
  url: CheckedUrl
  events: string[]
  enabled?: boolean
}

const SIGNING_PURPOSE = 'webhook-signing'
const MAX_WEBHOOKS = 20
const MAX_URL_LENGTH = 2048

/**
 * The URL as it will be called, checked before any transaction (it may ask DNS): http or https,
 * no credentials, and no private, loopback or link-local address unless the server allows them.
 * The dispatcher checks again at every call, as DNS may change.
 */
export async function checkUrl(url: string, targets: TargetOptions): Promise<CheckedUrl> {
  if (url.length > MAX_URL_LENGTH) throw invalid('url', `must be at most ${MAX_URL_LENGTH} characters`)
  try {
    return (await checkTarget(url.trim(), targets)).url.href as CheckedUrl
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    // A value that is no URL at all gets what to type; a URL that is refused, why.
    if (/ is not a valid URL$/.test(reason)) throw invalid('url', 'Enter a full URL, for example https://example.com/webhooks.', 'invalid_string')
    throw invalid('url', `The URL cannot be called: ${reason}.`)
  }
}

export async function requireWebhook(db: Db, projectId: number, id: string) {
  const row = await repo.findWebhook(db, projectId, id)
  if (!row) throw notFound(`Webhook ${id}`)
  return row
}

const newSecret = (serverSecret: string) => {
  const secret = randomToken(32)
  return { secret, sealed: seal(serverSecret, SIGNING_PURPOSE, secret) }
}

/** A new webhook, enabled unless asked otherwise; its secret is answered this once. */
export async function createWebhook(db: Db, projectId: number, input: WebhookInput, serverSecret: string, now: number) {
  const events = checkEvents(input.events)
  if ((await repo.countWebhooks(db, projectId)) >= MAX_WEBHOOKS) {
    throw conflict(`A project has at most ${MAX_WEBHOOKS} webhooks`, 'Delete one you no longer use, or let one webhook take more event types.')
  }
  const { secret, sealed } = newSecret(serverSecret)
  const row = await repo.insertWebhook(db, {
    id: newId(),
    project_id: projectId,
    url: input.url,
    events: JSON.stringify(events),
    enabled: input.enabled === false ? 0 : 1,
    disabled_reason: null,
    signing_secret: sealed,
    created_at: now,
    updated_at: now,
  })
  return { ...toWebhook(row), secret }
}

export const getWebhook = async (db: Db, projectId: number, id: string) => toWebhook(await requireWebhook(db, projectId, id))

export async function listWebhooks(db: Db, projectId: number, page: number, pageSize: number) {
  const { rows, total } = await repo.pageWebhooks(db, projectId, page, pageSize)
  return { webhooks: rows.map(toWebhook), page, pageSize, total }
}

/**
 * Changes the fields given. Disabling holds the deliveries not yet
 * made; enabling makes them due at once and starts counting failures afresh.
 */
export async function updateWebhook(db: Db, projectId: number, id: string, patch: Partial<WebhookInput>, now: number) {
  const row = await requireWebhook(db, projectId, id)
  const switching = patch.enabled !== undefined && patch.enabled !== (row.enabled === 1)
  if (switching) await (patch.enabled ? resumeDeliveries : pauseDeliveries)(db, row.id, now)
  // What waited while it was disabled is due again: the dispatcher looks once this transaction committed.
  if (switching && patch.enabled) rowsWait(db, 'webhook_deliveries', row.project_id)
  const updated = await repo.updateWebhookRow(db, row.id, {
    ...(patch.url !== undefined && { url: patch.url }),
    ...(patch.events !== undefined && { events: JSON.stringify(checkEvents(patch.events)) }),
    ...(switching && { enabled: patch.enabled ? 1 : 0, disabled_reason: null, consecutive_failures: 0 }),
    updated_at: now,
  })
  return toWebhook(updated)
}

export async function deleteWebhook(db: Db, projectId: number, id: string) {
  const row = await requireWebhook(db, projectId, id)
  await repo.deleteWebhookRow(db, row.id)
  return { id, success: true, message: 'Webhook deleted' }
}

/**
 * A new signing secret, answered this once. For `overlapHours` the old one signs too (each call
 * carries a signature by each), so receivers can switch without refusing a call.
 */
export async function rotateSecret(db: Db, projectId: number, id: string, overlapHours: number, serverSecret: string, now: number) {
  const row = await requireWebhook(db, projectId, id)
  const { secret, sealed } = newSecret(serverSecret)
  const until = overlapHours > 0 ? now + overlapHours * 3_600_000 : null
  await repo.updateWebhookRow(db, row.id, { signing_secret: sealed, previous_secret: until === null ? null : row.signing_secret, previous_secret_until: until, updated_at: now })
  return { secret, previousSecretExpiresAt: until === null ? null : new Date(until).toISOString() }
}

/** What signs a call now: the webhook's secret, then the previous one while its overlap lasts. */
export function signingSecrets(serverSecret: string, row: Pick<repo.WebhookRow, 'signing_secret' | 'previous_secret' | 'previous_secret_until'>, now: number): string[] {
  const current = unseal(serverSecret, SIGNING_PURPOSE, row.signing_secret)
  const overlapping = row.previous_secret !== null && row.previous_secret_until !== null && row.previous_secret_until > now
  return overlapping ? [current, unseal(serverSecret, SIGNING_PURPOSE, row.previous_secret!)] : [current]
}

/** The dispatcher gives up on an endpoint: its deliveries wait until someone enables it again. */
export async function disableWebhook(db: Db, id: string, reason: string, now: number): Promise<void> {
  await repo.updateWebhookRow(db, id, { enabled: 0, disabled_reason: reason, updated_at: now })
  await pauseDeliveries(db, id, now)
}

/**
 * Calls a finished delivery again (replay): the same payload, signed afresh, with a full round of
 * retries. A disabled webhook replays nothing, and a delivery still waiting is already to be called.
 */
export async function replayDelivery(db: Db, projectId: number, webhookId: string, deliveryId: string, now: number) {
  const webhook = await requireWebhook(db, projectId, webhookId)
  if (webhook.enabled !== 1) throw conflict('The webhook is disabled: enable it to replay its deliveries')
  const replayed = await replayFinished(db, webhook.id, deliveryId, now)
  if (!replayed) {
    const row = await findDelivery(db, webhook.id, deliveryId)
    if (!row) throw notFound('Delivery')
    throw conflict(`The delivery is ${row.state}: it is called without a replay`)
  }
  rowsWait(db, 'webhook_deliveries')
  return toDelivery(replayed)
}

export async function listDeliveries(db: Db, projectId: number, id: string, page: number, pageSize: number) {
  const row = await requireWebhook(db, projectId, id)
  const { rows, total } = await pageDeliveries(db, row.id, page, pageSize)
  return { deliveries: rows.map(toDelivery), page, pageSize, total }
}
