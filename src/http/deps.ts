import type { SiteReport } from '../delivery/sites/site-report.ts'
import type { SendSystemMail } from '../delivery/system-mail.ts'
import type { LinkSettings } from '../core/tracking/links.ts'
import type { BlockList } from 'node:net'
import type { Config } from '../config/config-schema.ts'
import type { DomainSettings } from '../core/domains/domains.service.ts'
import type { MessageParts } from '../core/emails/message.ts'
import type { SendSettings } from '../core/emails/send.ts'
import type { Authenticator } from '../core/projects/authenticator.ts'
import type { Verifier } from '../core/verify/verify.service.ts'
import type { Db } from '../db/schema.ts'
import type { DomainChecker } from '../workers/domain-checker.ts'
import type { StoredReport } from '../dns/server-checks.repository.ts'
import type { Writer } from '../db/writer.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'
import type { TargetOptions } from '../lib/outbound/target.ts'
import type { ListenerStatus } from '../smtp/listener.ts'
import type { RateLimiter } from './rate-limit.ts'

/** What the routes are given; built once by the composition root. */
export interface HttpDeps {
  config: Config
  db: Db
  writer: Writer
  clock: Clock
  logger: Logger
  authenticator: Authenticator
  rateLimiter: RateLimiter
  /** The reverse proxies whose X-Forwarded-For names the client (trustedProxies). */
  trustedProxies: BlockList
  verify: Verifier
  domainSettings: DomainSettings
  checker: DomainChecker
  /** The stored report of the server's reputation self-checks, for /health and the API. */
  serverChecks: { latest(): Promise<StoredReport | undefined> }
  sendSettings: SendSettings
  /** Builds a message, off the main thread. */
  build: (parts: MessageParts) => Promise<Uint8Array>
  /** What links in mail are made of (tracking, unsubscribe). */
  links: LinkSettings
  /** How webhook URLs are checked. */
  webhooks: { targets: TargetOptions }
  /** The process's metrics: the HTTP layer records its own and serves them all at /metrics. */
  metrics: Registry
  /** The public addresses this server sends from (configured, else its interfaces'): DMARC summaries tell its mail from others'. */
  serverIps: () => readonly string[]
  /** Destination sites with this project's queue for each. */
  sites: (projectId: number) => Promise<SiteReport[]>
  /** When a campaign's last message may go under the warm-up caps; null when none holds it back. */
  warmupFinish: (campaignId: string) => Promise<string | null>
  /** Sends the server's own mail (invitations) from MAILSTEAD_SYSTEM_SENDER, at once. */
  systemMail: SendSystemMail
  /** The SMTP listeners' state, for /health. */
  listeners: () => Record<string, ListenerStatus>
}

/** Runs a write through the group-commit writer with the time it was asked for: what route files' `write` is. */
export const writeAt =
  (deps: Pick<HttpDeps, 'clock' | 'writer'>) =>
  <T>(work: (trx: Db, at: number) => Promise<T>): Promise<T> => {
    const at = deps.clock.now()
    return deps.writer.run((trx) => work(trx, at))
  }
