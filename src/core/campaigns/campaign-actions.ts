import type { Db } from '../../db/schema.ts'
import { rowsWait } from '../../db/writer.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { moveCampaignDeliveries } from '../queue/index.ts'
import { cancelEmails } from '../emails/email-events.ts'
import { senderDomain } from '../emails/send.ts'
import { requireUnderGuardrails, type GuardrailSettings } from '../guardrails/guard.ts'
import { campaignPaused } from '../reactions.ts'
import type { PauseFacts } from '../webhooks/payload.ts'
import { audienceSize } from './audience.ts'
import { campaignStats, type CampaignRow } from './campaign.ts'
import { sentForCampaign } from './campaign-queries.ts'
import * as repo from './campaigns.repository.ts'
import { requireCampaign } from './campaigns.service.ts'
import { requireAllowed, resumedStatus } from './transitions.ts'

export interface SendOptions {
  /** When to start; now when absent or not in the future. */
  at?: number
  /** The request's name for `at`, for errors. */
  atField: string
  batchSize?: number
}

/**
 * Sends the campaign now, or schedules it. Its sender's domain must be verified and its audience
 * must not be empty; the audience is read into recipients when sending starts.
 */
export async function sendCampaign(db: Db, projectId: number, id: string, options: SendOptions, now: number): Promise<CampaignRow> {
  const row = await requireCampaign(db, projectId, id)
  const later = options.at !== undefined && options.at > now
  requireAllowed(row.status, later ? 'schedule' : 'send')
  if (options.at !== undefined && options.at < now - 60_000) throw invalid(options.atField, 'must not be in the past')
  await senderDomain(db, projectId, row.from_address)
  const total = await audienceSize(db, row, now)
  if (total === 0) {
    throw new AppError(422, 'NO_RECIPIENTS', 'The campaign has no one to go to: its audience has no subscribed, unsuppressed contacts', {
      suggestion: 'Check the audience (segment or condition) and that its contacts are subscribed.',
    })
  }
  const batch = options.batchSize === undefined ? {} : { batch_size: options.batchSize }
  const timing = later ? { status: 'SCHEDULED' as const, scheduled_at: options.at! } : { status: 'SENDING' as const, started_at: now, scheduled_at: row.scheduled_at ?? now }
  return sending(db, await repo.updateCampaignRow(db, id, { ...timing, ...batch, total, error: null, updated_at: now }))
}

/**
 * A campaign to send now wakes the sender once its transaction committed (`rowsWait`); one
 * scheduled for later is started by the sender's poll when its time comes.
 */
function sending(db: Db, row: CampaignRow): CampaignRow {
  if (row.status === 'SENDING') rowsWait(db, 'campaigns', row.project_id)
  return row
}

/** Stops handing batches to the queue and holds what is queued but not yet tried. */
export async function pauseCampaign(db: Db, projectId: number, id: string, now: number): Promise<CampaignRow> {
  const row = await requireCampaign(db, projectId, id)
  requireAllowed(row.status, 'pause')
  return holdCampaign(db, row, { reason: 'user', message: null }, now)
}

/**
 * Pauses the campaign in the caller's transaction: its deliveries queued but not yet tried are
 * held (`paused`), its `error` says why (null for its user's pause), and its project's webhooks
 * get campaign.paused. By its user, or by the sender when a guardrail stops it.
 */
export async function holdCampaign(db: Db, row: CampaignRow, pause: PauseFacts, now: number): Promise<CampaignRow> {
  await moveCampaignDeliveries(db, sentForCampaign(row.id), 'queued', 'paused', {}, now)
  const paused = await repo.updateCampaignRow(db, row.id, { status: 'PAUSED', error: pause.message, updated_at: now })
  await campaignPaused(db, paused, pause, now)
  return paused
}

/**
 * Sends on from where it stopped; held deliveries go back to the queue with a fresh expiry. While
 * its sending domain is over a guardrail's limit it would only pause again, so it is refused
 * (409 SENDING_GUARDRAIL) and says why.
 */
export async function resumeCampaign(db: Db, projectId: number, id: string, settings: ResumeSettings, now: number): Promise<CampaignRow> {
  const row = await requireCampaign(db, projectId, id)
  requireAllowed(row.status, 'resume')
  const domain = await senderDomain(db, projectId, row.from_address)
  // A sandbox's mail reaches no one: no reputation of a domain to guard.
  if (domain.id !== null) await requireUnderGuardrails(db, projectId, { id: domain.id, name: domain.name }, settings.guardrails, now)
  await moveCampaignDeliveries(db, sentForCampaign(id), 'paused', 'queued', { next_attempt_at: now, expires_at: now + settings.maxAgeMs }, now)
  return sending(db, await repo.updateCampaignRow(db, id, { status: resumedStatus(row, now), error: null, updated_at: now }))
}

export interface ResumeSettings {
  /** How long a released delivery may be retried. */
  maxAgeMs: number
  guardrails: GuardrailSettings
}

/** Stops the campaign for good: nothing more is handed, and what waits in the queue is cancelled. */
export async function cancelCampaign(db: Db, projectId: number, id: string, now: number): Promise<CampaignRow> {
  const row = await requireCampaign(db, projectId, id)
  requireAllowed(row.status, 'cancel')
  const moved = [
    ...(await moveCampaignDeliveries(db, sentForCampaign(id), 'queued', 'cancelled', {}, now)),
    ...(await moveCampaignDeliveries(db, sentForCampaign(id), 'paused', 'cancelled', {}, now)),
  ]
  await cancelEmails(db, [...new Set(moved.map((d) => d.email_id))], now)
  return repo.updateCampaignRow(db, id, { status: 'CANCELLED', updated_at: now })
}

export async function campaignStatsOf(db: Db, projectId: number, id: string) {
  const row = await requireCampaign(db, projectId, id)
  return campaignStats(row, await repo.handedCount(db, id))
}
