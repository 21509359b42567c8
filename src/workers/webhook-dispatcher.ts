import { createWorker } from '../cluster/worker.ts'
import type { Claiming } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import { claimDeliveries, dueWork, findCallTargets, pauseDelivery, pickDeliveries, pruneFinished, recordAttempt, signingSecrets, type CallTarget, type CallWebhook, type Caps, type Claimed } from '../core/webhooks/index.ts'

export interface DispatcherSettings extends Caps {
  /** Calls under way at once, in all. */
  concurrency: number
  /** How often to look for deliveries that came due (retries) without anyone waking the dispatcher. */
  pollMs: number
  /** How long finished deliveries are kept for the API, before pruning deletes them. */
  keepFinishedMs: number
}

export interface DispatcherDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  /** Unseals the webhooks' signing secrets. */
  serverSecret: string
  call: CallWebhook
  settings: DispatcherSettings
  /** This process, as its claims of webhook deliveries name it. */
  claimant: Claiming
}

const describe = (error: unknown) => String((error as Error)?.stack ?? error)

/** The claimed deliveries in the order their ids were picked (RETURNING gives rows in no set order). */
const inOrder = (claimed: Claimed[], picked: readonly string[]) => {
  const rank = new Map(picked.map((id, i) => [id, i]))
  return [...claimed].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!)
}

const PRUNE_EVERY_MS = 60 * 60_000
/** The first pruning waits a little, so that it does not compete with a start's own work. */
const FIRST_PRUNE_MS = 60_000

/**
 * The webhook dispatcher. Due deliveries are taken (leased in one statement) as places free up,
 * a few per webhook at most, and called outside any transaction; each outcome is recorded in a
 * transaction of its own. Everything is in the database: a crash loses nothing, and a call under
 * way when it happened is made again after its lease, with the same id.
 */
export function createWebhookDispatcher(deps: DispatcherDeps) {
  const { clock, logger, settings } = deps
  const underWay = new Map<string, number>()
  let pruning: Promise<number> | undefined
  let halting = false

  async function attempt(delivery: Claimed, target: CallTarget | undefined): Promise<void> {
    // A deleted webhook's deliveries went with it.
    if (!target) return
    if (target.enabled !== 1) {
      await deps.write((trx) => pauseDelivery(trx, delivery, clock.now()))
      return
    }
    const secrets = signingSecrets(deps.serverSecret, target, clock.now())
    const result = await deps.call({ url: target.url, eventId: delivery.event_id, type: delivery.type, body: delivery.payload, secrets })
    const recorded = await deps.write((trx) => recordAttempt(trx, delivery, result, clock.now()))
    // Not the URL: some carry their own secret (a chat service's incoming-webhook URL).
    const fields = { webhookId: delivery.webhook_id, deliveryId: delivery.id, eventId: delivery.event_id, attempt: recorded.attempts, status: result.status, ms: result.durationMs }
    if (result.ok) logger.debug('WEBHOOK[delivered]', 'delivered', fields)
    else logger.warn(`WEBHOOK[${recorded.state === 'pending' ? 'retrying' : recorded.state}]`, result.error ?? 'failed', fields)
    if (recorded.disabled) logger.warn('WEBHOOK[disabled]', recorded.disabled, { webhookId: delivery.webhook_id })
  }

  function start(delivery: Claimed, target: CallTarget | undefined) {
    const webhook = delivery.webhook_id
    underWay.set(webhook, (underWay.get(webhook) ?? 0) + 1)
    const run = attempt(delivery, target)
      .catch(async (error) => {
        logger.error('WEBHOOK', 'a delivery could not be made or recorded; it is made again', { deliveryId: delivery.id, error: describe(error) })
        // Due again, the call repeats with the same id; if even this write fails, the claim's lease runs out.
        await worker.unclaim([delivery.id]).catch(() => {})
      })
      .finally(() => {
        worker.letGo([delivery.id])
        const left = underWay.get(webhook)! - 1
        if (left === 0) underWay.delete(webhook)
        else underWay.set(webhook, left)
        void take().catch(failed)
      })
    worker.track(run)
  }

  /** How many calls are under way now, in all. */
  const callsUnderWay = () => [...underWay.values()].reduce((sum, count) => sum + count, 0)

  const failed = (error: unknown) => logger.error('WEBHOOK', 'dispatcher round failed', { error: describe(error) })

  const worker = createWorker(
    {
      tag: 'WEBHOOK',
      failed: 'dispatcher round failed',
      // Each round takes all it may; freed places call take themselves, so a round never asks for another.
      round: async () => {
        await take()
        return false
      },
      pollMs: settings.pollMs,
      timers: [{ everyMs: PRUNE_EVERY_MS, firstAfterMs: FIRST_PRUNE_MS, run: () => pruneNow() }],
      claims: { table: 'webhook_deliveries', claimant: deps.claimant },
    },
    deps,
  )

  /** Takes the deliveries that may be called now; a call while one is under way asks it to look again. */
  const take = worker.coalesced(async () => {
    const room = settings.concurrency - callsUnderWay()
    if (room <= 0) return 0
    const now = clock.now()
    const picked = pickDeliveries(await dueWork(deps.db, now, settings.perWebhook), underWay, room, settings)
    if (picked.length === 0) return 0
    const claimed = await worker.claim((trx, claimant) => claimDeliveries(trx, claimant, picked, now), (delivery) => delivery.id)
    // The calls start in the order picked (a webhook's deliveries in the order they were made),
    // each at once: their targets are read together first, so that none waits on a read of its
    // own, which several connections (PostgreSQL's) would answer in any order.
    const targets = await findCallTargets(deps.db, [...new Set(claimed.map((delivery) => delivery.webhook_id))])
    for (const delivery of inOrder(claimed, picked)) start(delivery, targets.get(delivery.webhook_id))
    return claimed.length
  })

  /** Deletes finished deliveries older than they are kept; a call while one runs is that one. */
  function prune(): Promise<number> {
    pruning ??= pruneFinished(deps.write, clock.now() - settings.keepFinishedMs, () => halting).finally(() => (pruning = undefined))
    return pruning
  }
  const pruneNow = () =>
    void prune()
      .then((deleted) => deleted > 0 && logger.info('WEBHOOK', `${deleted} finished deliveries deleted`, { keptDays: settings.keepFinishedMs / 86_400_000 }))
      .catch((error) => logger.error('WEBHOOK', 'pruning deliveries failed', { error: describe(error) }))

  return {
    /** Deliveries wait (written, or due again): look for them now. */
    wake: worker.wake,
    start() {
      halting = false
      worker.start()
    },
    /** Takes nothing more; waits for the calls under way (each ends by its deadline); gives back what it holds. */
    async stop() {
      halting = true
      await worker.stop()
      await pruning?.catch(() => {})
    },
    /** Deletes the finished deliveries older than they are kept (hourly once started); answers how many. */
    prune,
    /**
     * Makes every call that is due now, and those their outcomes make due now, whether or not the
     * dispatcher is started: for tests.
     */
    async drain() {
      await worker.idle()
      await worker.open(async () => {
        for (;;) {
          const taken = await take()
          await worker.settle()
          if (taken === 0 && callsUnderWay() === 0) return
        }
      })
    },
  }
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>
