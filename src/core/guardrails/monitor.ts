import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Logger } from '../../lib/logger.ts'
import { allWindowCounts, hourOf, KEEP_HOURS, pruneCounters } from '../analytics/counters.ts'
import { domainNames } from '../domains/domain-queries.ts'
import { breachText, judge, type Breach, type GuardrailSettings, type Rates } from './guard.ts'

export interface MonitorDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  settings: GuardrailSettings
  /** How often to look; a minute by default. */
  intervalMs?: number
}

/** A project and sending domain that went over a limit, or came back under it. */
export interface Crossing {
  projectId: number
  domainId: number
  domain: string
  breach: Breach
  state: 'over' | 'under'
}

/**
 * Watches every project's sending domains over the window: when one goes over a limit, a warning
 * (tag GUARDRAIL) says so once, whatever mail it was, transactional included, which goes on being
 * sent; when it comes back under, a line says that. Campaigns are paused by their sender, not
 * here. What is over is remembered in memory: after a restart a domain still over is said once
 * more. Each pass also deletes counter rows older than KEEP_HOURS.
 */
export function createGuardrailMonitor(deps: MonitorDeps) {
  const { logger, settings } = deps
  const over = new Map<string, Set<Breach>>()
  let timer: ReturnType<typeof setInterval> | undefined
  let pass: Promise<Crossing[]> | undefined
  let prunedHour = -1

  async function look(): Promise<Crossing[]> {
    const now = deps.clock.now()
    const found: Array<Omit<Crossing, 'domain'> & { rates: Rates | null }> = []
    const seen = new Set<string>()
    for (const pair of await allWindowCounts(deps.db, now, settings.windowHours)) {
      const key = `${pair.projectId}:${pair.domainId}`
      seen.add(key)
      const { rates, breaches } = judge(pair, settings)
      const before = over.get(key) ?? new Set<Breach>()
      const ids = { projectId: pair.projectId, domainId: pair.domainId, rates }
      for (const breach of breaches) if (!before.has(breach)) found.push({ ...ids, breach, state: 'over' })
      for (const breach of before) if (!breaches.includes(breach)) found.push({ ...ids, breach, state: 'under' })
      if (breaches.length > 0) over.set(key, new Set(breaches))
      else over.delete(key)
    }
    // A pair with no rows left in the window is under every limit.
    for (const [key, breaches] of over) {
      if (seen.has(key)) continue
      const [projectId, domainId] = key.split(':').map(Number) as [number, number]
      for (const breach of breaches) found.push({ projectId, domainId, breach, state: 'under', rates: null })
      over.delete(key)
    }
    const names = await domainNames(deps.db, [...new Set(found.map((c) => c.domainId))])
    const crossings = found.map(({ rates, ...crossing }): Crossing => {
      const domain = names.get(crossing.domainId) ?? `domain ${crossing.domainId}`
      const fields = { ...crossing, domain, ...rates }
      if (crossing.state === 'over') {
        const said = breachText(domain, { rates: rates!, judged: true, breaches: [crossing.breach] }, settings)
        logger.warn('GUARDRAIL', `project ${crossing.projectId}: ${said}; its campaigns from ${domain} pause, its transactional mail goes on`, fields)
      } else {
        const what = crossing.breach === 'complaint_rate' ? 'complaints' : 'hard bounces'
        logger.info('GUARDRAIL', `project ${crossing.projectId}: ${what} from ${domain} are back under the limit`, fields)
      }
      return { ...crossing, domain }
    })
    if (hourOf(now) !== prunedHour) {
      prunedHour = hourOf(now)
      await deps.write((trx) => pruneCounters(trx, prunedHour - KEEP_HOURS))
    }
    return crossings
  }

  /** One look now; a look asked for while one runs is that one. Answers the crossings it found. */
  function tick(): Promise<Crossing[]> {
    pass ??= look().finally(() => (pass = undefined))
    return pass
  }

  const run = () => void tick().catch((error) => logger.error('GUARDRAIL', 'looking at the sending rates failed', { error: String(error) }))

  return {
    tick,
    start() {
      timer = setInterval(run, deps.intervalMs ?? 60_000)
      timer.unref()
    },
    async stop() {
      clearInterval(timer)
      await pass?.catch(() => {})
    },
  }
}

export type GuardrailMonitor = ReturnType<typeof createGuardrailMonitor>
