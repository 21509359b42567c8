import type { Server } from 'bun'
import type { Authenticator } from '../core/projects/authenticator.ts'
import { createVerifier } from '../core/verify/verify.service.ts'
import type { Writer } from '../db/writer.ts'
import { warmupFinishOf } from '../delivery/sites/forecast.ts'
import { siteReports } from '../delivery/sites/site-report.ts'
import { serverIps } from '../dns/server-ips.ts'
import { trustedProxies } from '../http/client-address.ts'
import { createRateLimiter } from '../http/rate-limit.ts'
import { createHttpApp, type HttpApp } from '../http/http-app.ts'
import { healthOnly, serveHttp } from '../http/serving.ts'
import { linkSettingsOf, sendSettingsOf } from '../settings-of.ts'
import type { ListenerStatus } from '../smtp/listener.ts'
import type { DeliveryParts } from './delivery-wiring.ts'
import type { DnsParts } from './dns-wiring.ts'
import type { SchedulerParts } from './scheduler-wiring.ts'
import { runs, type SharedParts } from './shared-parts.ts'

/**
 * Bun's own cap on a request body, set far above the API's limits: those refuse an oversized body
 * from its Content-Length (or while counting it) with the API's error body, whereas Bun's cap
 * would answer first with a bare 413.
 */
const BUN_BODY_CAP = 1024 * 1024 * 1024

/**
 * Seconds a connection may sit idle. Bun's default of 10 s would cut a login the throttle holds (up
 * to 8 s) before its check and its password hash are done on a busy machine: the client would see
 * a dropped connection.
 */
const IDLE_TIMEOUT_SECONDS = 30

export interface HttpWiring {
  writer: Writer
  authenticator: Authenticator
  dns: DnsParts
  delivery: DeliveryParts
  schedulers: SchedulerParts
  /** The SMTP listeners' state, once they are started. */
  listeners: () => Record<string, ListenerStatus>
}

/** The HTTP API over every part: routes, its rate limits, and what the console's pages read. */
export function wireHttp(parts: SharedParts, wiring: HttpWiring): HttpApp {
  const { config, db, resolver, clock, logger, metrics, rateLimits } = parts
  const { shaping, work } = wiring.delivery
  const { webhookTargets } = wiring.schedulers
  return createHttpApp({
    config,
    db,
    writer: wiring.writer,
    clock,
    logger,
    authenticator: wiring.authenticator,
    rateLimiter: createRateLimiter(rateLimits, {
      perMinute: config.rateLimitPerMinute,
      trackPerMinute: config.trackRateLimitPerMinute,
      trackPerAddressPerMinute: config.trackRateLimitPerAddressPerMinute,
      formPerAddressPerMinute: config.formRateLimitPerAddressPerMinute,
      unauthenticatedPerMinute: config.unauthenticatedRateLimitPerMinute,
    }),
    trustedProxies: trustedProxies(config.trustedProxies),
    verify: createVerifier(resolver, clock),
    domainSettings: wiring.dns.domainSettings,
    checker: wiring.dns.checker,
    serverChecks: wiring.dns.serverChecks,
    sendSettings: sendSettingsOf(config),
    build: work.build,
    links: linkSettingsOf(config),
    webhooks: { targets: webhookTargets },
    metrics,
    serverIps: () => serverIps(config.publicIps),
    sites: (projectId) => siteReports(db, shaping, clock.now(), projectId),
    warmupFinish: (campaignId) => warmupFinishOf(db, shaping, campaignId, clock.now()),
    systemMail: wiring.delivery.systemMail,
    listeners: wiring.listeners,
  })
}

/**
 * Starts listening. Without the http role a process still answers /health and /metrics, for its
 * load balancer and monitoring.
 */
export function listenHttp(parts: SharedParts, http: HttpApp): Server<undefined> {
  const server = serveHttp(parts.config, {
    fetch: runs(parts.config, 'http') ? http.fetch : healthOnly(http.fetch),
    maxRequestBodySize: BUN_BODY_CAP,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
  })
  // Handlers read the client's address through it: Elysia learns of a server only from listen(), which is not used.
  http.server = server
  return server
}
