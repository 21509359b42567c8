import type { Server } from 'bun'
import { migrationsFor } from '../migrations/index.ts'
import type { Config, Role } from './config/schema.ts'
import { joinCluster, processClaimant, type Wakers } from './cluster/membership.ts'
import { createRateLimits } from './cluster/rate-limits.ts'
import { healthOnly, serveHttp, stopHttp } from './http/serving.ts'
import { composeCampaignEmail } from './core/campaigns/message.ts'
import { createCampaignSender } from './workers/campaign-sender.ts'
import { announceSetup } from './core/accounts/setup.ts'
import { createImportRunner } from './workers/import-runner.ts'
import { createAuthenticator } from './core/projects/authenticator.ts'
import { createMembershipTracker } from './workers/membership-tracker.ts'
import type { LinkSettings } from './core/tracking/links.ts'
import { createWorkflowEngine } from './workers/workflow-runner.ts'
import { createWebhookCaller } from './core/workflows/webhook-caller.ts'
import { signingSecretOf } from './core/workflows/workflows.service.ts'
import { createDeliveryCaller } from './core/webhooks/caller.ts'
import { createWebhookDispatcher } from './workers/webhook-dispatcher.ts'
import { createVerifier } from './core/verify/verify.service.ts'
import { createBodyPruner } from './core/emails/pruner.ts'
import { guardrailSettingsOf } from './core/guardrails/guard.ts'
import { createGuardrailMonitor } from './core/guardrails/monitor.ts'
import { openDatabase } from './db/client.ts'
import { checkpoint, startDbMaintenance } from './db/maintenance.ts'
import { migrate } from './db/migrator.ts'
import { createWriter } from './db/writer.ts'
import { createAttempt } from './delivery/attempt.ts'
import { createSandboxKeys } from './delivery/sandbox-keys.ts'
import { createReportHandler } from './smtp/handle-report.ts'
import { createDeliveryLoop } from './delivery/loop.ts'
import { createMxResolver } from './delivery/mx.ts'
import { createDomainKeys } from './delivery/sending-domain.ts'
import { createMailWork } from './delivery/mail-work.ts'
import { createSmtpPool } from './delivery/smtp-client.ts'
import { createTransfer } from './delivery/transfer.ts'
import { createRouteProbe } from './delivery/ip-routes.ts'
import { createMtaSts } from './delivery/mta-sts.ts'
import { trustedCas } from './lib/outbound/trust.ts'
import { caFileOf, databaseTarget, deliverySettingsOf, domainSettingsOf, linkSettingsOf, selfCheckSettingsOf, sendSettingsOf } from './settings-of.ts'
import { shapingOf } from './delivery/sites/configure.ts'
import { createShaper } from './delivery/sites/shaper.ts'
import { createSiteResolver } from './delivery/sites/site-resolver.ts'
import { warmupIsOn } from './delivery/sites/warmup.ts'
import { warmupFinishOf } from './delivery/sites/forecast.ts'
import { siteReports } from './delivery/sites/site-report.ts'
import { siteMetrics } from './delivery/sites/site-metrics.ts'
import { createDomainChecker } from './workers/domain-checker.ts'
import { hostAddresses } from './dns/host-addresses.ts'
import { serverIps } from './dns/server-ips.ts'
import { createResolver } from './dns/resolver.ts'
import { createServerChecks } from './dns/self-checks.ts'
import { trustedProxies } from './http/client-address.ts'
import { createRateLimiter } from './http/rate-limit.ts'
import { startSmtpListeners, type ListenerName, type SmtpListeners } from './smtp/listeners.ts'
import { createHttpApp } from './http/server.ts'
import { systemClock, type Clock } from './lib/clock.ts'
import { settlesWithin } from './lib/deadline.ts'
import type { Resolver } from './lib/dns.ts'
import { createLogger, type Logger } from './lib/logger.ts'
import { hostnameProblem } from './config/hostname.ts'
import { createRegistry } from './lib/metrics.ts'
import { processMetrics } from './lib/process-metrics.ts'

export interface AppOptions {
  clock?: Clock
  logger?: Logger
  resolver?: Resolver
  /** SMTP listeners that may move to an unprivileged port when theirs needs root (see portFallbacks). */
  smtpPortFallbacks?: Partial<Record<ListenerName, number>>
}

/**
 * Bun's own cap on a request body, set far above the API's limits: those refuse an oversized body
 * from its Content-Length (or while counting it) with the API's error body, whereas Bun's cap
 * would answer first with a bare 413.
 */
const BUN_BODY_CAP = 1024 * 1024 * 1024

/**
 * The one composition root: opens and migrates the database and wires every part. Nothing
 * listens and no timer runs until `start()`.
 */
export async function createApp(config: Config, options: AppOptions = {}) {
  const logger = options.logger ?? createLogger(config.logLevel)
  const clock = options.clock ?? systemClock
  const database = await openDatabase(databaseTarget(config))
  const applied = await migrate(database.db, migrationsFor(database.dialect), () => clock.now())
  if (applied.length > 0) logger.info('MIGRATE', `applied ${applied.join(', ')}`)
  /** What wakes a loop of this process when rows of its work table wait; filled once the loops exist. */
  const wakers: Wakers = {}
  // A write that committed rows that wait wakes their table's loop (src/db/writer.ts, rowsWait).
  const writer = createWriter(database.db, { wake: (table) => wakers[table]?.() })
  /** This process, as its claims of work rows and its singleton leases name it. */
  // Claims and leases are written on their own, never behind a batch of other work that waits on locks.
  const claimant = processClaimant(database.db, writer.run, config.leaseSeconds)
  // Request budgets, the login throttle and send rates, shared by every process on the database.
  const rateLimits = createRateLimits({ db: database.db, write: writer.run, clock, logger })
  // Every part records into it; GET /metrics (with metricsToken) shows it.
  const metrics = createRegistry()
  const processGauges = processMetrics(metrics, 'mailstead')
  const resolver = options.resolver ?? createResolver(config.dnsServers, config.dnsTimeoutMs)
  const domainSettings = domainSettingsOf(config)
  const links: LinkSettings = linkSettingsOf(config)
  const serverChecks = createServerChecks({ db: database.db, write: writer.run, resolver, clock, logger, settings: selfCheckSettingsOf(config) })
  const checker = createDomainChecker({
    db: database.db,
    write: writer.run,
    resolver,
    clock,
    logger,
    settings: domainSettings,
    metrics,
    server: serverChecks,
    claimant,
  })
  // Extra CAs (deliveryCaFile) besides the well-known ones: for MTA-STS policy hosts and MX certificates.
  const trusted = trustedCas(config.deliveryCaFile ? caFileOf(config.deliveryCaFile) : undefined)
  const pool = createSmtpPool({
    hostname: config.hostname,
    requireValidCertificate: config.deliveryVerifyCertificates,
    ...(trusted && { ca: trusted }),
    timeoutMs: config.smtpTimeoutSeconds * 1000,
    messagesPerConnection: 100,
    idleMs: 5000,
  })
  const work = createMailWork(config.mailWorkers)
  const mx = createMxResolver(resolver, clock, config.deliveryIpFamily)
  const shaping = shapingOf(config, await warmupIsOn(database.db, config.warmup))
  siteMetrics(metrics, () => siteReports(database.db, shaping, clock.now()))
  const mtaSts = createMtaSts({
    db: database.db,
    write: writer.run,
    resolver,
    clock,
    logger,
    settings: { allowPrivate: config.deliveryAllowPrivateTargets, ...(trusted && { ca: trusted }), port: config.mtaStsPort, fetchTimeoutMs: Math.min(60_000, (config.deliveryAttemptTimeoutSeconds * 1000) / 2) },
  })
  const transfer = createTransfer({
    mx,
    pool,
    routed: createRouteProbe(),
    mtaSts: (domain) => mtaSts.policyFor(domain),
    settings: { port: config.deliveryPort, ...(config.smarthost && { smarthost: config.smarthost }), allowPrivate: config.deliveryAllowPrivateTargets },
  })
  const attempt = createAttempt({
    db: database.db,
    write: writer.run,
    clock,
    transfer,
    work,
    domainOf: createDomainKeys(database.db, config.secret, clock),
    sandboxDomainOf: createSandboxKeys(database.db, writer.run, config.secret, clock),
    complain: createReportHandler({ db: database.db, write: writer.run, secret: config.secret, clock, logger, resolver }, { fblAddress: config.fblAddress, fblSenders: config.fblSenders }),
    compose: (emailId) => composeCampaignEmail(database.db, emailId, links),
    settings: deliverySettingsOf(config),
  })
  const deliveries = createDeliveryLoop({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    attempt,
    settings: {
      concurrency: config.deliveryConcurrency,
      perDomain: config.deliveryPerDomain,
      ratePerSecond: config.sendRatePerSecond,
      pollMs: 1000,
    },
    metrics,
    sites: createSiteResolver(mx, shaping.rules, clock, config.smarthost?.host),
    shaper: createShaper({ clock, logger, ...shaping }),
    claimant,
    sendRate: rateLimits.sendRate,
  })
  const authenticator = createAuthenticator(database.db, clock, rateLimits.loginFailures)
  const memberships = createMembershipTracker({ db: database.db, write: writer.run, clock, logger })
  const sendSettings = sendSettingsOf(config)
  const guardrailSettings = guardrailSettingsOf(config)
  const campaigns = createCampaignSender({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    queued: (projectId) => deliveries.queued(projectId),
    settings: { pollMs: 250, listChunk: 5000, handChunk: 1000, maxAgeMs: sendSettings.maxAgeMs, guardrails: guardrailSettings },
    claimant,
  })
  const workflows = createWorkflowEngine({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    build: work.build,
    links,
    sendSettings,
    call: createWebhookCaller({ allowPrivate: config.webhookAllowPrivateTargets, resolve: hostAddresses(resolver) }),
    signingSecret: (workflow) => signingSecretOf(config.secret, workflow),
    queued: (projectId) => deliveries.queued(projectId),
    concurrency: 32,
    pollMs: 250,
    claimant,
  })
  const imports = createImportRunner({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    dataDir: config.dataDir,
    claimant,
  })
  const guardrails = createGuardrailMonitor({ db: database.db, write: writer.run, clock, logger, settings: guardrailSettings })
  const pruner = createBodyPruner({ db: database.db, write: writer.run, clock, logger, retentionDays: config.retentionDays })
  const webhookTargets = { allowPrivate: config.webhookAllowPrivateTargets, resolve: hostAddresses(resolver) }
  const webhooks = createWebhookDispatcher({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    serverSecret: config.secret,
    call: createDeliveryCaller(webhookTargets),
    settings: { concurrency: 32, perWebhook: 8, perFailingWebhook: 2, pollMs: 1000, keepFinishedMs: 30 * 86_400_000 },
    claimant,
  })
  let smtp: SmtpListeners | undefined
  const http = createHttpApp({
    config,
    db: database.db,
    writer,
    clock,
    logger,
    authenticator,
    rateLimiter: createRateLimiter(rateLimits, {
      perMinute: config.rateLimitPerMinute,
      trackPerMinute: config.trackRateLimitPerMinute,
      trackPerAddressPerMinute: config.trackRateLimitPerAddressPerMinute,
      unauthenticatedPerMinute: config.unauthenticatedRateLimitPerMinute,
    }),
    trustedProxies: trustedProxies(config.trustedProxies),
    verify: createVerifier(resolver, clock),
    domainSettings,
    checker,
    serverChecks,
    sendSettings,
    build: work.build,
    deliveries,
    imports,
    campaigns,
    workflows,
    links,
    webhooks: { targets: webhookTargets, wake: webhooks.wake },
    metrics,
    serverIps: () => serverIps(config.publicIps),
    sites: (projectId) => siteReports(database.db, shaping, clock.now(), projectId),
    warmupFinish: (campaignId) => warmupFinishOf(database.db, shaping, campaignId, clock.now()),
    listeners: () => smtp?.status() ?? {},
  })
  let server: Server<undefined> | undefined
  let stopMaintenance = () => {}
  const runs = (role: Role) => config.role.includes(role)
  let stopping: Promise<void> | undefined
  // Singletons run in one process of those sharing the database, the one holding their lease.
  // Loops are woken when rows of their work table wait: written by this process (once committed),
  // queued by another process, or given back after a lease ran out.
  Object.assign(wakers, {
    ...(runs('delivery') && { deliveries: () => deliveries.queued() }),
    ...(runs('scheduler') && {
      webhook_deliveries: () => webhooks.wake(),
      workflow_executions: () => workflows.wake(),
      contact_imports: () => imports.queued(),
      campaigns: () => campaigns.wake(),
    }),
  })
  const cluster = joinCluster(
    { databaseUrl: config.databaseUrl, db: database.db, clock, logger, claimant },
    { 'domain-checker': checker, 'membership-tracker': memberships, 'body-pruner': pruner, 'guardrail-monitor': guardrails },
    wakers,
  )
  const { singletons, keeper } = cluster
  /** The loops the scheduler role runs (started in this order; delivery and its MTA-STS cache are the delivery role's). */
  const schedulerParts = [singletons['domain-checker'], imports, campaigns, workflows, webhooks, singletons['membership-tracker'], singletons['body-pruner'], singletons['guardrail-monitor']]

  /**
   * New work stops at once: no connections, SMTP transactions, claims or rounds are taken. What
   * is under way (SMTP transactions, HTTP requests, delivery attempts, workflow steps) gets
   * `stopGraceSeconds` in all to finish; then connections are closed, deliveries still in flight
   * go back to the queue, and the database is checkpointed and closed. Pools and workers close
   * last, so that work cut off cannot record a failure that was only the stop.
   */
  async function shutDown() {
    const began = Date.now()
    const graceMs = config.stopGraceSeconds * 1000
    const failed = (error: unknown) => logger.error('STOP', 'a part failed to stop', { error: String((error as Error)?.stack ?? error) })
    stopMaintenance()
    await cluster.stopListening()
    processGauges.stop()
    mtaSts.stop()
    const parts = [...(runs('scheduler') ? schedulerParts : []), ...(runs('delivery') ? [deliveries] : [])]
    // Each part's failure is its own: the others are still waited for.
    const loops = Promise.allSettled(parts.map((part) => part.stop())).then((results) => {
      for (const result of results) if (result.status === 'rejected') failed(result.reason)
    })
    const [smtpCut, httpCut] = await Promise.all([smtp?.stop(graceMs) ?? 0, stopHttp(server, graceMs)])
    const loopsDone = await settlesWithin(loops, graceMs - (Date.now() - began), failed)
    await rateLimits.stop()
    await writer.drain()
    // What this process still holds (its loops were cut off) waits for the others at once, not
    // after its leases run out.
    await keeper.stop()
    const claimsLeft = await keeper.release().catch((error) => (failed(error), undefined))
    const wal = await checkpoint(database.db).catch((error) => (failed(error), undefined))
    await database.close()
    pool.close()
    work.close()
    const fields = { smtpConnectionsCut: smtpCut, httpCut, claimsLeft, loopsDone, wal, writes: writer.stats() }
    logger.info('STOP', `stopped in ${Date.now() - began} ms`, fields)
  }

  return {
    db: database.db,
    writer,
    /** This process as its claims and the leases of singletons name it. */
    leaseOwner: claimant.owner,
    /** The heartbeat of this process's claims: `keep()` renews them and gives back expired ones now. */
    claims: keeper,
    checker,
    /** The server's reputation self-checks: the checker runs them hourly once started; `run()` runs them now. */
    serverChecks,
    deliveries,
    campaigns,
    imports,
    workflows,
    /** Webhook deliveries: called once started; `drain()` makes the calls that are due now. */
    webhooks,
    /** Segment membership tracking: a round runs every minute once started; `tick()` runs one now. */
    memberships,
    /** Deletes old email bodies (retentionDays) hourly once started; `tick()` runs a pass now. */
    pruner,
    /** Warns once when a project's sending domain goes over a guardrail (every minute once started); `tick()` looks now. */
    guardrails,
    handle: (request: Request) => http.handle(request),
    /** The HTTP API's address once started. */
    get url(): string {
      if (!server) throw new Error('not started')
      return `http://${server.hostname}:${server.port}`
    },
    async start() {
      const hostname = hostnameProblem(config.hostname)
      if (hostname) logger.warn('CONFIG', hostname)
      server = serveHttp(config, {
        // Without the http role a process still answers /health and /metrics, for its load balancer and monitoring.
        fetch: runs('http') ? http.fetch : healthOnly(http.fetch),
        maxRequestBodySize: BUN_BODY_CAP,
        // Bun's default of 10 s would cut a login the throttle holds (up to 8 s) before its check
        // and its password hash are done on a busy machine: the client would see a dropped connection.
        idleTimeout: 30,
      })
      // Handlers read the client's address through it: Elysia learns of a server only from listen(), which is not used.
      http.server = server
      stopMaintenance = startDbMaintenance(database.db, logger)
      rateLimits.start()
      processGauges.start()
      if (runs('delivery')) {
        await deliveries.start()
        mtaSts.start()
      }
      if (runs('scheduler')) for (const part of schedulerParts) await part.start()
      cluster.start()
      if (runs('smtp')) {
        smtp = await startSmtpListeners(
          config,
          { db: database.db, write: writer.run, secret: config.secret, clock, logger, resolver },
          { db: database.db, write: writer.run, authenticator, sendSettings, links, queued: () => deliveries.queued(), clock, logger },
          logger,
          metrics,
          options.smtpPortFallbacks,
        )
      }
      logger.info('HTTP', `listening on http://${server.hostname}:${server.port}`, { roles: config.role.join(',') })
      if (runs('http')) await announceSetup(database.db, config.secret, config.publicUrl, logger, clock.now())
    },
    /** The SMTP listeners' state and ports, once started. */
    listeners: () => smtp?.status(),
    /** Stops gracefully, within `stopGraceSeconds` (see shutDown); a second call waits for the first. */
    stop(): Promise<void> {
      stopping ??= shutDown()
      return stopping
    },
  }
}

export type App = Awaited<ReturnType<typeof createApp>>
