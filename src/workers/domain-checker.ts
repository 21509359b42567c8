import { createWorker } from '../cluster/worker.ts'
import { abandonCheck, beginCheck, dueDomains, expectedRecords, finishCheck, judge, type DomainRow, type DomainSettings, type ExpectedRecord, type RecordKind, type Verdict } from '../core/domains/index.ts'
import type { Claiming } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { Resolver } from '../lib/dns.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'

export interface CheckerDeps {
  db: Db
  /** Runs a write: the server's group-commit writer, or a plain transaction in the CLI. */
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  resolver: Resolver
  clock: Clock
  logger: Logger
  settings: DomainSettings
  metrics: Registry
  /** The server's own reputation checks, run on the same timer when their report is due. */
  server?: { runIfDue(): Promise<unknown> }
  /** This process, as its claims of checks name it. */
  claimant: Claiming
}

export interface CheckResult {
  domain: DomainRow
  verdicts: Map<RecordKind, Verdict>
}

const TICK_MS = 30_000
const DOMAINS_PER_TICK = 25
/** The server's checks run this soon after a start (when their stored report is not fresh). */
const FIRST_SERVER_CHECK_MS = 5_000

/**
 * Verifies sending domains' DNS: on a timer for the domains that are due, or at once on request.
 * Every record of a domain is asked in parallel and every query is bounded by the resolver's
 * timeout, so a silent name server delays only the domain that depends on it. The same timer
 * runs the server's own checks (PTR, blocklists, ...) when they are due, in a round of their own
 * so that they never hold the domains up.
 */
export function createDomainChecker(deps: CheckerDeps) {
  const { settings, clock, logger } = deps
  let serverRound: Promise<void> | undefined
  const checks = deps.metrics.counter({
    name: 'mailstead_domain_checks_total',
    help: "DNS checks of sending domains, by the domain's status after the check (error: the check itself failed)",
    labelNames: ['status'],
  })

  const lookup = async (record: ExpectedRecord): Promise<[RecordKind, Verdict]> => {
    try {
      return [record.kind, judge(record, await deps.resolver.query(record.name, record.type), settings.hostname)]
    } catch (error) {
      return [record.kind, { result: 'unavailable', found: null, problem: (error as Error).message }]
    }
  }

  /** Checks one domain now; undefined when it is gone or already being checked. */
  async function check(id: number): Promise<CheckResult | undefined> {
    const [domain] = await worker.claim(async (trx, claimant) => {
      const begun = await beginCheck(trx, claimant, id, clock.now())
      return begun ? [begun] : []
    }, () => id)
    if (!domain) return undefined
    try {
      const verdicts = new Map(await Promise.all(expectedRecords(domain, settings.hostname).map(lookup)))
      const checked = await deps.write((trx) => finishCheck(trx, id, verdicts, settings, clock.now()))
      if (!checked) return undefined
      checks.inc({ status: checked.status })
      const level = checked.status === 'SUCCESS' ? 'info' : 'warn'
      logger[level](`DOMAIN[${checked.status}]`, `${checked.name} checked`, { domainId: id, previous: domain.status })
      return { domain: checked, verdicts }
    } catch (error) {
      checks.inc({ status: 'error' })
      await deps.write((trx) => abandonCheck(trx, id))
      throw error
    } finally {
      // Its end written, or its lease left to run out.
      worker.letGo([id])
    }
  }

  /** Checks every domain that is due, in parallel. */
  async function checkDue(): Promise<void> {
    const due = await dueDomains(deps.db, clock.now(), DOMAINS_PER_TICK)
    const results = await Promise.allSettled(due.map((domain) => check(domain.id)))
    for (const result of results) {
      if (result.status === 'rejected') logger.error('DOMAIN', 'check failed', { error: String(result.reason) })
    }
  }

  function checkServer() {
    if (!deps.server) return
    // The stop waits for it.
    serverRound ??= worker.track(
      deps.server
        .runIfDue()
        .then(
          () => {},
          (error) => logger.error('SELFCHECK', 'server self-checks failed', { error: String(error) }),
        )
        .finally(() => (serverRound = undefined)),
    )
  }

  const worker = createWorker(
    {
      tag: 'DOMAIN',
      failed: 'check failed',
      round: async () => {
        await checkDue()
        return false
      },
      pollMs: TICK_MS,
      // The first round comes with the timer, not with the start.
      roundAtStart: false,
      timers: [{ everyMs: TICK_MS, firstAfterMs: FIRST_SERVER_CHECK_MS, run: checkServer }],
      // Checks asked for by a request (check) run outside the rounds: a stop leaves them to finish.
      claims: { table: 'domains', claimant: deps.claimant, givesBack: false },
    },
    deps,
  )

  return {
    check,
    checkDue,
    async start() {
      worker.start()
    },
    /** Takes no more rounds; waits for the round and the server's checks under way. */
    stop: worker.stop,
  }
}

export type DomainChecker = ReturnType<typeof createDomainChecker>
