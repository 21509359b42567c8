import type { Server } from 'bun'
import type { Config } from './config/config-schema.ts'
import { hostnameProblem } from './config/hostname.ts'
import { announceSetup } from './core/accounts/setup.ts'
import { createAuthenticator } from './core/projects/authenticator.ts'
import { startDbMaintenance } from './db/maintenance.ts'
import { createResolver } from './dns/resolver.ts'
import { systemClock, type Clock } from './lib/clock.ts'
import type { Resolver } from './lib/dns.ts'
import { createLogger, type Logger } from './lib/logger.ts'
import { createRegistry } from './lib/metrics.ts'
import { processMetrics } from './lib/process-metrics.ts'
import type { ListenerName, SmtpListeners } from './smtp/listeners.ts'
import { wireCluster } from './app/cluster-wiring.ts'
import { wireDatabase } from './app/database-wiring.ts'
import { wireDelivery } from './app/delivery-wiring.ts'
import { wireDns } from './app/dns-wiring.ts'
import { listenHttp, wireHttp } from './app/http-wiring.ts'
import { wireSchedulers } from './app/scheduler-wiring.ts'
import { runs, type SharedParts } from './app/shared-parts.ts'
import { shutDown } from './app/shutdown.ts'
import { startSmtp } from './app/smtp-wiring.ts'

export interface AppOptions {
  clock?: Clock
  logger?: Logger
  resolver?: Resolver
  /** SMTP listeners that may move to an unprivileged port when theirs needs root (see portFallbacks). */
  smtpPortFallbacks?: Partial<Record<ListenerName, number>>
}

/**
 * The one composition root: opens and migrates the database and wires every part, one subsystem
 * per function of `src/app/`. Nothing listens and no timer runs until `start()`.
 */
export async function createApp(config: Config, options: AppOptions = {}) {
  const logger = options.logger ?? createLogger(config.logLevel)
  const clock = options.clock ?? systemClock
  const { database, writer, wakers, claimant, rateLimits } = await wireDatabase(config, clock, logger)
  const metrics = createRegistry()
  const processGauges = processMetrics(metrics, 'mailstead')
  const resolver = options.resolver ?? createResolver(config.dnsServers, config.dnsTimeoutMs)
  const parts: SharedParts = { config, db: database.db, write: writer.run, clock, logger, resolver, metrics, claimant, rateLimits }
  const dns = wireDns(parts)
  const delivery = await wireDelivery(parts)
  const { deliveries, mtaSts } = delivery
  const authenticator = createAuthenticator(database.db, clock, rateLimits.loginFailures, writer.run)
  const schedulers = wireSchedulers(parts, delivery)
  let smtp: SmtpListeners | undefined
  const http = wireHttp(parts, { writer, authenticator, dns, delivery, schedulers, listeners: () => smtp?.status() ?? {} })
  const { cluster, schedulerLoops } = wireCluster(parts, wakers, dns, delivery, schedulers)
  let server: Server<undefined> | undefined
  let stopMaintenance = () => {}
  let stopping: Promise<void> | undefined

  return {
    db: database.db,
    writer,
    /** This process as its claims and the leases of singletons name it. */
    leaseOwner: claimant.owner,
    /** The heartbeat of this process's claims: `keep()` renews them and gives back expired ones now. */
    claims: cluster.keeper,
    checker: dns.checker,
    /** The server's reputation self-checks: the checker runs them hourly once started; `run()` runs them now. */
    serverChecks: dns.serverChecks,
    deliveries,
    campaigns: schedulers.campaigns,
    imports: schedulers.imports,
    workflows: schedulers.workflows,
    /** Webhook deliveries: called once started; `drain()` makes the calls that are due now. */
    webhooks: schedulers.webhooks,
    /** Segment membership tracking: a round runs every minute once started; `tick()` runs one now. */
    memberships: schedulers.memberships,
    /** Deletes old email bodies (retentionDays) hourly once started; `tick()` runs a pass now. */
    pruner: schedulers.pruner,
    /** Warns once when a project's sending domain goes over a guardrail (every minute once started); `tick()` looks now. */
    guardrails: schedulers.guardrails,
    handle: (request: Request) => http.handle(request),
    /** The HTTP API's address once started. */
    get url(): string {
      if (!server) throw new Error('not started')
      return `http://${server.hostname}:${server.port}`
    },
    async start() {
      const hostname = hostnameProblem(config.hostname)
      if (hostname) logger.warn('CONFIG', hostname)
      server = listenHttp(parts, http)
      stopMaintenance = startDbMaintenance(database.db, logger)
      rateLimits.start()
      processGauges.start()
      if (runs(config, 'delivery')) {
        await deliveries.start()
        mtaSts.start()
      }
      if (runs(config, 'scheduler')) for (const loop of schedulerLoops) await loop.start()
      cluster.start()
      if (runs(config, 'smtp')) smtp = await startSmtp(parts, authenticator, options.smtpPortFallbacks)
      logger.info('HTTP', `listening on http://${server.hostname}:${server.port}`, { roles: config.role.join(',') })
      if (runs(config, 'http')) await announceSetup(database.db, config.secret, config.publicUrl, logger, clock.now())
    },
    /** The SMTP listeners' state and ports, once started. */
    listeners: () => smtp?.status(),
    /** Stops gracefully, within `stopGraceSeconds` (see src/app/shutdown.ts); a second call waits for the first. */
    stop(): Promise<void> {
      stopping ??= shutDown({
        config,
        logger,
        stopMaintenance,
        cluster,
        timers: [processGauges, mtaSts],
        loops: [...(runs(config, 'scheduler') ? schedulerLoops : []), ...(runs(config, 'delivery') ? [deliveries] : [])],
        smtp: () => smtp,
        server: () => server,
        rateLimits,
        writer,
        database,
        pools: [delivery.pool, delivery.work],
      })
      return stopping
    },
  }
}

export type App = Awaited<ReturnType<typeof createApp>>
