import { join } from 'node:path'
import type { Server } from 'bun'
import { MIGRATIONS } from '../migrations/index.ts'
import type { Config } from './config/schema.ts'
import { composeCampaignEmail } from './core/campaigns/message.ts'
import { createCampaignSender } from './core/campaigns/sender.ts'
import type { AfterChunk } from './core/contacts/import-file.ts'
import { createImportRunner } from './core/contacts/import-runner.ts'
import { createAuthenticator } from './core/projects/authenticator.ts'
import { createMembershipTracker } from './core/segments/tracker.ts'
import { refreshMemberships } from './core/segments/tracking.ts'
import type { LinkSettings } from './core/tracking/links.ts'
import { createWorkflowEngine } from './core/workflows/engine.ts'
import { createWebhookCaller } from './core/workflows/webhook-caller.ts'
import { signingSecretOf } from './core/workflows/workflows.service.ts'
import type { DomainSettings } from './core/domains/domains.service.ts'
import { createVerifier } from './core/verify/verify.service.ts'
import { openDatabase } from './db/client.ts'
import { startDbMaintenance } from './db/maintenance.ts'
import { migrate } from './db/migrator.ts'
import { createWriter } from './db/writer.ts'
import { createAttempt, type DeliverySettings } from './delivery/attempt.ts'
import { createDeliveryLoop } from './delivery/loop.ts'
import { createMxResolver } from './delivery/mx.ts'
import { createDomainKeys } from './delivery/sending-domain.ts'
import { createMailWork } from './delivery/mail-work.ts'
import { createSmtpPool } from './delivery/smtp-client.ts'
import { createDomainChecker } from './dns/checker.ts'
import { hostAddresses } from './dns/host-addresses.ts'
import { createResolver } from './dns/resolver.ts'
import { createRateLimiter } from './http/rate-limit.ts'
import { startSmtpListeners, type SmtpListeners } from './smtp/listeners.ts'
import { createHttpApp } from './http/server.ts'
import { systemClock, type Clock } from './lib/clock.ts'
import type { Resolver } from './lib/dns.ts'
import { createLogger, type Logger } from './lib/logger.ts'

export interface AppOptions {
  clock?: Clock
  logger?: Logger
  resolver?: Resolver
}

/**
 * Bun's own cap on a request body, set far above the API's limits: those refuse an oversized body
 * from its Content-Length (or while counting it) with the API's error body, whereas Bun's cap
 * would answer first with a bare 413.
 */
const BUN_BODY_CAP = 1024 * 1024 * 1024

export const databasePath = (config: Config) => join(config.dataDir, 'mailstead.db')

/**
 * What each chunk of a contact import does in its transaction besides writing the contacts: the
 * server's imports and `mailstead contacts import` both run it. Tracked segments see the imported
 * contacts enter and leave.
 */
export const afterImportChunk: AfterChunk = refreshMemberships

/**
 * The one composition root: opens and migrates the database and wires every part. Nothing
 * listens and no timer runs until `start()`.
 */
export async function createApp(config: Config, options: AppOptions = {}) {
  const logger = options.logger ?? createLogger(config.logLevel)
  const clock = options.clock ?? systemClock
  const database = openDatabase(databasePath(config))
  const applied = await migrate(database.db, MIGRATIONS, () => clock.now())
  if (applied.length > 0) logger.info('MIGRATE', `applied ${applied.join(', ')}`)
  const writer = createWriter(database.db)
  const resolver = options.resolver ?? createResolver(config.dnsServers, config.dnsTimeoutMs)
  const domainSettings = domainSettingsOf(config)
  const links: LinkSettings = { secret: config.secret, baseUrl: config.publicUrl }
  const checker = createDomainChecker({ db: database.db, write: writer.run, resolver, clock, logger, settings: domainSettings })
  const pool = createSmtpPool({
    hostname: config.hostname,
    requireValidCertificate: config.deliveryVerifyCertificates,
    timeoutMs: config.smtpTimeoutSeconds * 1000,
    messagesPerConnection: 100,
    idleMs: 5000,
  })
  const work = createMailWork(config.mailWorkers)
  const attempt = createAttempt({
    db: database.db,
    write: writer.run,
    clock,
    mx: createMxResolver(resolver, clock),
    pool,
    work,
    domainOf: createDomainKeys(database.db, config.secret, clock),
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
  })
  const authenticator = createAuthenticator(database.db, clock)
  const memberships = createMembershipTracker({ db: database.db, write: writer.run, clock, logger })
  const sendSettings = { maxAgeMs: config.deliveryMaxAgeHours * 3_600_000 }
  const campaigns = createCampaignSender({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    queued: (projectId) => deliveries.queued(projectId),
    settings: { pollMs: 250, listChunk: 5000, handChunk: 1000, maxAgeMs: sendSettings.maxAgeMs },
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
  })
  const imports = createImportRunner({
    db: database.db,
    write: writer.run,
    clock,
    logger,
    dataDir: config.dataDir,
    afterChunk: afterImportChunk,
  })
  let smtp: SmtpListeners | undefined
  const http = createHttpApp({
    config,
    db: database.db,
    writer,
    clock,
    logger,
    authenticator,
    rateLimiter: createRateLimiter(clock, config.rateLimitPerMinute),
    verify: createVerifier(resolver, clock),
    domainSettings,
    checker,
    sendSettings,
    build: work.build,
    deliveries,
    imports,
    campaigns,
    workflows,
    links,
    listeners: () => smtp?.status() ?? {},
  })
  let server: Server<undefined> | undefined
  let stopMaintenance = () => {}

  return {
    db: database.db,
    writer,
    checker,
    deliveries,
    campaigns,
    imports,
    workflows,
    /** Segment membership tracking: a round runs every minute once started; `tick()` runs one now. */
    memberships,
    handle: (request: Request) => http.handle(request),
    /** The HTTP API's address once started. */
    get url(): string {
      if (!server) throw new Error('not started')
      return `http://${server.hostname}:${server.port}`
    },
    async start() {
      server = Bun.serve({
        hostname: config.httpHost,
        port: config.httpPort,
        fetch: http.fetch,
        maxRequestBodySize: BUN_BODY_CAP,
      })
      stopMaintenance = startDbMaintenance(database.db, logger)
      await checker.start()
      await deliveries.start()
      await imports.start()
      campaigns.start()
      workflows.start()
      await memberships.start()
      smtp = await startSmtpListeners(
        config,
        { write: writer.run, secret: config.secret, clock, logger },
        { db: database.db, write: writer.run, authenticator, sendSettings, queued: () => deliveries.queued(), clock, logger },
        logger,
      )
      logger.info('HTTP', `listening on http://${server.hostname}:${server.port}`)
    },
    /** The SMTP listeners' state and ports, once started. */
    listeners: () => smtp?.status(),
    async stop() {
      await smtp?.stop()
      await server?.stop()
      stopMaintenance()
      await checker.stop()
      await imports.stop()
      await campaigns.stop()
      await workflows.stop()
      await memberships.stop()
      await deliveries.stop()
      pool.close()
      work.close()
      await writer.drain()
      await database.close()
      logger.info('STOP', 'stopped', { writes: writer.stats() })
    },
  }
}

export type App = Awaited<ReturnType<typeof createApp>>

export const domainSettingsOf = (config: Config): DomainSettings => ({
  secret: config.secret,
  hostname: config.hostname,
  returnPathLabel: config.returnPathLabel,
  regions: config.regions,
  graceMs: config.domainGraceHours * 3_600_000,
  pendingCheckMs: config.domainCheckPendingMinutes * 60_000,
  verifiedCheckMs: config.domainCheckVerifiedMinutes * 60_000,
})

export const deliverySettingsOf = (config: Config): DeliverySettings => ({
  secret: config.secret,
  port: config.deliveryPort,
  ...(config.smarthost && { smarthost: config.smarthost }),
  retrySchedule: config.deliveryRetrySchedule,
  attemptTimeoutMs: config.deliveryAttemptTimeoutSeconds * 1000,
})
