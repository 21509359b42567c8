import type { Config } from '../config/config-schema.ts'
import { composeCampaignEmail } from '../core/campaigns/campaign-message.ts'
import { createAttempt } from '../delivery/attempt.ts'
import { createRouteProbe } from '../delivery/ip-routes.ts'
import { createDeliveryLoop } from '../workers/delivery-loop.ts'
import { createMailWork } from '../delivery/mail-work.ts'
import { createMtaSts } from '../delivery/mta-sts.ts'
import { createMxResolver } from '../delivery/mx.ts'
import { createSandboxKeys } from '../delivery/sandbox-keys.ts'
import { createDomainKeys } from '../delivery/sending-domain.ts'
import { shapingOf } from '../delivery/sites/configure.ts'
import { siteMetrics } from '../delivery/sites/site-metrics.ts'
import { siteReports } from '../delivery/sites/site-report.ts'
import { createShaper } from '../delivery/sites/shaper.ts'
import { createSiteResolver } from '../delivery/sites/site-resolver.ts'
import { warmupIsOn } from '../delivery/sites/warmup.ts'
import { createSmtpPool } from '../delivery/smtp-client.ts'
import { createSystemMail } from '../delivery/system-mail.ts'
import { createTransfer } from '../delivery/transfer.ts'
import { trustedCas } from '../lib/outbound/trust.ts'
import { caFileOf, deliverySettingsOf, linkSettingsOf } from '../settings-of.ts'
import { createReportHandler } from '../smtp/handle-report.ts'
import type { SharedParts } from './shared-parts.ts'

/**
 * Messages one pooled connection carries when the delivery's site names no limit of its own (every
 * site has one: `src/delivery/sites/configure.ts` gives sites that no rule limits this same 100).
 */
const POOL_MESSAGES_PER_CONNECTION = 100

/**
 * An unused pooled connection is closed after this long: the next message of a burst to the same
 * host still finds it open, and an idle connection does not hold one of the remote's slots for long.
 */
const POOL_IDLE_MS = 5000

/**
 * How often the delivery loop looks for deliveries that came due without anyone waking it: new and
 * given-back work wakes it at once, so the poll only finds retries whose time has come, for which
 * a second late makes no difference.
 */
const DELIVERY_POLL_MS = 1000

/**
 * One MTA-STS policy fetch may take at most half an attempt (and never more than a minute), so that
 * a slow policy host still leaves the attempt time to deliver.
 */
const mtaStsFetchTimeoutMs = (config: Config) => Math.min(60_000, (config.deliveryAttemptTimeoutSeconds * 1000) / 2)

/**
 * The outbound MTA: the pooled SMTP client, the mail worker threads, MX and MTA-STS, site shaping,
 * one attempt, and the delivery loop that claims the queue and runs attempts.
 */
export async function wireDelivery(parts: SharedParts) {
  const { config, db, write, resolver, clock, logger, metrics, claimant, rateLimits } = parts
  // Extra CAs (deliveryCaFile) besides the well-known ones: for MTA-STS policy hosts and MX certificates.
  const trusted = trustedCas(config.deliveryCaFile ? caFileOf(config.deliveryCaFile) : undefined)
  const pool = createSmtpPool({
    hostname: config.hostname,
    requireValidCertificate: config.deliveryVerifyCertificates,
    ...(trusted && { ca: trusted }),
    timeoutMs: config.smtpTimeoutSeconds * 1000,
    messagesPerConnection: POOL_MESSAGES_PER_CONNECTION,
    idleMs: POOL_IDLE_MS,
  })
  const work = createMailWork(config.mailWorkers)
  const mx = createMxResolver(resolver, clock, config.deliveryIpFamily)
  const shaping = shapingOf(config, await warmupIsOn(db, config.warmup))
  siteMetrics(metrics, () => siteReports(db, shaping, clock.now()))
  const mtaSts = createMtaSts({
    db,
    write,
    resolver,
    clock,
    logger,
    settings: { allowPrivate: config.deliveryAllowPrivateTargets, ...(trusted && { ca: trusted }), port: config.mtaStsPort, fetchTimeoutMs: mtaStsFetchTimeoutMs(config) },
  })
  const transfer = createTransfer({
    mx,
    pool,
    routed: createRouteProbe(),
    mtaSts: (domain) => mtaSts.policyFor(domain),
    settings: { port: config.deliveryPort, ...(config.smarthost && { smarthost: config.smarthost }), allowPrivate: config.deliveryAllowPrivateTargets },
  })
  const links = linkSettingsOf(config)
  const attempt = createAttempt({
    db,
    write,
    clock,
    transfer,
    work,
    domainOf: createDomainKeys(db, config.secret, clock),
    sandboxDomainOf: createSandboxKeys(db, write, config.secret, clock),
    complain: createReportHandler({ db, write, secret: config.secret, clock, logger, resolver }, { fblAddress: config.fblAddress, fblSenders: config.fblSenders }),
    compose: (emailId) => composeCampaignEmail(db, emailId, links),
    settings: deliverySettingsOf(config),
  })
  const deliveries = createDeliveryLoop({
    db,
    write,
    clock,
    logger,
    attempt,
    settings: {
      concurrency: config.deliveryConcurrency,
      perDomain: config.deliveryPerDomain,
      ratePerSecond: config.sendRatePerSecond,
      pollMs: DELIVERY_POLL_MS,
    },
    metrics,
    sites: createSiteResolver(mx, shaping.rules, clock, config.smarthost?.host),
    shaper: createShaper({ clock, logger, ...shaping }),
    claimant,
    sendRate: rateLimits.sendRate,
  })
  // The server's own mail (invitations): the same transfer, once, within one attempt's time.
  const systemMail = createSystemMail({ transfer, work, logger, sender: config.systemSender, timeoutMs: config.deliveryAttemptTimeoutSeconds * 1000 })
  return { pool, work, shaping, mtaSts, deliveries, systemMail }
}

export type DeliveryParts = Awaited<ReturnType<typeof wireDelivery>>
