import { createWorker } from '../cluster/worker.ts'
import type { Claiming } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { AppError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { senderDomain } from '../core/emails/index.ts'
import { guardrailPauseMessage, guardrailVerdict, verdictFacts, type GuardrailSettings, type Verdict } from '../core/guardrails/index.ts'
import { campaignSent } from '../core/reactions.ts'
import {
  activeCampaigns,
  campaignById,
  campaignForStep,
  claimCampaigns,
  handChunk,
  hasWaitingDeliveries,
  holdCampaign,
  listChunk,
  startDueCampaigns,
  unclaimCampaigns,
  updateCampaignRow,
  type CampaignRow,
} from '../core/campaigns/index.ts'

export interface SenderSettings {
  /** How often to look for campaigns that came due or may hand their next batch. */
  pollMs: number
  /** Audience members read into recipients per transaction. */
  listChunk: number
  /** Recipients handed to the queue per transaction. */
  handChunk: number
  /** How long a delivery may be retried. */
  maxAgeMs: number
  /** The limits over which a campaign pauses itself. */
  guardrails: GuardrailSettings
}

export interface SenderDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  settings: SenderSettings
  /** This process, as its claims of the campaigns it sends name them. */
  claimant: Claiming
}

/** What a step leaves: more to do now, nothing until later, or the campaign no longer this process's to send. */
type Step = 'more' | 'idle' | 'done'

interface Progress {
  next: Step
  /** Emails handed to the queue, for this project. */
  handed: number
  projectId?: number
  /** The campaign a guardrail paused in this step, and why. */
  guarded?: { campaign: CampaignRow; verdict: Verdict }
}

const IDLE: Progress = { next: 'idle', handed: 0 }
const DONE: Progress = { next: 'done', handed: 0 }

/**
 * The campaign sender. Every SENDING campaign advances one transaction at a time: first its
 * audience is read into recipients in chunks, then recipients are handed to the delivery queue in
 * batches of `batchSize`. A batch starts when the last has left the queue (none of its deliveries
 * still waits for a first attempt) and `batchWindowMinutes` have passed since the last began, so
 * a campaign never holds more than a batch of the queue and the project's send rate paces it.
 * All of its state is in the database: a restart goes on where it stopped.
 */
export function createCampaignSender(deps: SenderDeps) {
  const { clock, logger, settings } = deps

  /** A batch may start: the window since the last has passed and the last has left the queue. */
  async function mayStartBatch(trx: Db, campaign: CampaignRow, now: number) {
    const windowEnd = (campaign.batch_started_at ?? 0) + campaign.batch_window_minutes * 60_000
    return now >= windowEnd && !(await hasWaitingDeliveries(trx, campaign.id))
  }

  /**
   * Hands the next chunk of the batch, or starts the next batch when it may. Before anything, the
   * guardrails: on every round (while a batch waits in the queue too), a campaign whose project
   * and sending domain are over a limit pauses, holding what it has queued and not yet tried.
   */
  async function hand(trx: Db, campaign: CampaignRow, now: number): Promise<Progress> {
    let current = campaign
    const domain = await senderDomain(trx, current.project_id, current.from_address)
    // A sandbox's mail reaches no one: no reputation of a domain to guard.
    const verdict = domain.id === null ? undefined : await guardrailVerdict(trx, current.project_id, { id: domain.id, name: domain.name }, settings.guardrails, now)
    if (verdict && verdict.message !== null) {
      const pause = { reason: verdict.breaches[0]!, message: guardrailPauseMessage(verdict), guardrail: verdictFacts(verdict, settings.guardrails) }
      return { ...IDLE, guarded: { campaign: await holdCampaign(trx, current, pause, now), verdict } }
    }
    if (current.batch_started_at === null || current.batch_handed >= current.batch_size) {
      if (!(await mayStartBatch(trx, current, now))) return IDLE
      current = await updateCampaignRow(trx, current.id, { batch_started_at: now, batch_handed: 0 })
    }
    const from = { domainId: domain.id, domainName: domain.name, sandbox: domain.sandbox, maxAgeMs: settings.maxAgeMs }
    const { handed, more } = await handChunk(trx, current, from, Math.min(settings.handChunk, current.batch_size - current.batch_handed), now)
    if (more) return { next: 'more', handed, projectId: current.project_id }
    await updateCampaignRow(trx, current.id, { status: 'SENT', sent_at: now, updated_at: now })
    await campaignSent(trx, current, now)
    logger.info('CAMPAIGN', `${current.name} handed to the queue in full`, { campaignId: current.id, total: current.total })
    return { next: 'idle', handed, projectId: current.project_id }
  }

  /** One transaction's worth of progress for one campaign. */
  async function step(id: string): Promise<Step> {
    const progress = await deps.write(async (trx): Promise<Progress> => {
      const campaign = await campaignForStep(trx, id)
      // Finished, paused, cancelled or deleted; or this process's lease ran out and another took it over.
      if (campaign?.status !== 'SENDING' || campaign.claimed_by !== worker.owner) return DONE
      const now = clock.now()
      if (campaign.listed === 1) return hand(trx, campaign, now)
      await listChunk(trx, campaign, settings.listChunk, now)
      return { next: 'more', handed: 0 }
    })
    if (progress.guarded) {
      const { campaign, verdict } = progress.guarded
      logger.warn('GUARDRAIL', `campaign ${campaign.name} paused: ${verdict.message}`, {
        campaignId: campaign.id,
        projectId: campaign.project_id,
        reason: verdict.breaches[0],
        ...verdictFacts(verdict, settings.guardrails),
      })
    }
    return progress.next
  }

  /** A campaign that cannot go on (its domain lost verification, its segment was deleted) pauses and says why. */
  async function stepOrPause(id: string): Promise<Step> {
    try {
      return await step(id)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      // Paused as its user would pause it: what it queued and was not tried yet is held too.
      await deps.write(async (trx) => {
        const row = await campaignById(trx, id)
        if (row) await holdCampaign(trx, row, { reason: 'error', message: error.message }, clock.now())
      })
      logger.warn('CAMPAIGN', 'paused: it cannot go on', { campaignId: id, error: error.message })
      return 'done'
    }
  }

  /** The campaigns this process sends: claimed, and held until they leave SENDING. */
  const inHand = () => worker.held() as string[]

  /**
   * Starts what came due, claims the sending campaigns no process sends yet, then advances each
   * in hand by a step; true while any has more.
   */
  async function round(): Promise<boolean> {
    const now = clock.now()
    const active = await activeCampaigns(deps.db)
    const due = active.filter((c) => c.status === 'SCHEDULED' && c.scheduled_at! <= now).map((c) => c.id)
    if (due.length > 0) await deps.write((trx) => startDueCampaigns(trx, due, now))
    const free = [...active.filter((c) => c.status === 'SENDING' && c.claimed_by === null).map((c) => c.id), ...due]
    if (free.length > 0) await worker.claim((trx, claimant) => claimCampaigns(trx, claimant, free, now), (id) => id)
    let busy = false
    const done: string[] = []
    for (const id of inHand()) {
      const next = await stepOrPause(id)
      if (next === 'more') busy = true
      if (next === 'done') done.push(id)
    }
    if (done.length > 0) {
      await deps.write((trx) => unclaimCampaigns(trx, worker.owner, done))
      worker.letGo(done)
    }
    return busy
  }

  const worker = createWorker(
    { tag: 'CAMPAIGN', failed: 'sending round failed', round, pollMs: settings.pollMs, claims: { table: 'campaigns', claimant: deps.claimant } },
    deps,
  )

  return {
    /** A campaign was sent, scheduled or resumed: look now rather than at the next tick. */
    wake: worker.wake,
    start: worker.start,
    /** Takes nothing more; waits for the round under way; gives back the campaigns it sends. */
    stop: worker.stop,
    /** Runs rounds until none has more to do, whether or not the sender is started: for tests. */
    async drain() {
      await worker.idle()
      while (await round()) {}
    },
  }
}

export type CampaignSender = ReturnType<typeof createCampaignSender>
