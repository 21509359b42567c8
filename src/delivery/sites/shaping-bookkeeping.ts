import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Logger } from '../../lib/logger.ts'
import type { Settlement } from '../attempt.ts'
import type { Shaper } from './shaper.ts'
import { loadSites, mapDomains, saveSites } from './sites.repository.ts'

export interface ShapingBookkeepingDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  shaper: Shaper
}

/**
 * What the delivery loop keeps of its sites besides their queues: the shaping state taken back
 * at the start, what each attempt's outcome means for its site (and, when the site is suspended
 * by it, for the message), the sites new domains were found to be, and the writing down of what
 * changed, every few seconds and at the stop.
 */
export function createShapingBookkeeping(deps: ShapingBookkeepingDeps) {
  const { clock, logger, shaper } = deps
  /** Domains whose site was found since the last flush. */
  const foundDomains: Array<{ domain: string; site: string }> = []

  /** The flush under way, if any: the next one runs after it. */
  let flushing: Promise<void> = Promise.resolve()

  async function writeDown(): Promise<void> {
    const rows = shaper.flush()
    const domains = foundDomains.splice(0)
    if (rows.length === 0 && domains.length === 0) return
    try {
      await deps.write(async (trx) => {
        await saveSites(trx, rows)
        await mapDomains(trx, domains, clock.now())
      })
    } catch (error) {
      logger.error('QUEUE', 'could not record the sites\' state', { error: String(error) })
    }
  }

  return {
    /** Takes back what was stored: throttles, suspensions and warm-up days survive a restart. */
    async restore(): Promise<void> {
      shaper.restore(await loadSites(deps.db))
    },

    /** A domain was found to go to this site: written down at the next flush. */
    found(domain: string, site: string): void {
      foundDomains.push({ domain, site })
    },

    /**
     * What the site's reply means for it (a throttle, a suspension) and for the message: a reply
     * that suspends its site defers the message until the suspension ends, never bounces it.
     */
    outcome(site: string, outcome: Settlement): Settlement {
      if (outcome.kind === 'delivered') shaper.delivered(site)
      const reply = outcome.data.reply
      if (!reply || shaper.observe(site, reply) !== 'suspend') return outcome
      if (outcome.kind !== 'bounced' && outcome.kind !== 'deferred') return outcome
      const until = shaper.hold(site)?.until ?? clock.now()
      return { kind: 'deferred', data: outcome.data, nextAttemptAt: until, category: 'suspended', held: true }
    },

    /**
     * Writes down what changed in the sites' shaping state, and the sites new domains were found to
     * be. Flushes run one after another: one that finds nothing new still waits for the write of
     * one under way (the timer's), so that when it returns everything so far is written.
     */
    flush(): Promise<void> {
      flushing = flushing.then(writeDown)
      return flushing
    },
  }
}

export type ShapingBookkeeping = ReturnType<typeof createShapingBookkeeping>
