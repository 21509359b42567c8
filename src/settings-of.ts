import { join } from 'node:path'
import { ConfigError } from './config/config-error.ts'
import type { Config } from './config/config-schema.ts'
import type { DomainSettings } from './core/domains/domains.service.ts'
import type { SendSettings } from './core/emails/send.ts'
import type { LinkSettings } from './core/tracking/links.ts'
import type { DatabaseTarget } from './db/client.ts'
import type { DeliverySettings } from './delivery/attempt.ts'
import type { SelfCheckSettings } from './dns/self-checks.ts'
import { readCaFile } from './lib/outbound/trust.ts'

/*
 * What the parts take from the configuration: the server (app.ts) and the CLI's commands read
 * them alike.
 */

/** SQLite's file in the data directory: where the data is unless `databaseUrl` says PostgreSQL. */
export const databasePath = (config: Config) => join(config.dataDir, 'mailstead.db')

/** Where this configuration keeps its data. */
export const databaseTarget = (config: Config): DatabaseTarget =>
  config.databaseUrl ? { dialect: 'postgres', url: config.databaseUrl } : { dialect: 'sqlite', path: databasePath(config) }

export const domainSettingsOf = (config: Config): DomainSettings => ({
  secret: config.secret,
  hostname: config.hostname,
  returnPathLabel: config.returnPathLabel,
  regions: config.regions,
  graceMs: config.domainGraceHours * 3_600_000,
  pendingCheckMs: config.domainCheckPendingMinutes * 60_000,
  verifiedCheckMs: config.domainCheckVerifiedMinutes * 60_000,
})

/** What links in mail are made of (tracking, unsubscribe). */
export const linkSettingsOf = (config: Config): LinkSettings => ({ secret: config.secret, baseUrl: config.publicUrl })

export const sendSettingsOf = (config: Config): SendSettings => ({ maxAgeMs: config.deliveryMaxAgeHours * 3_600_000 })

export const selfCheckSettingsOf = (config: Config): SelfCheckSettings => ({
  hostname: config.hostname,
  publicIps: config.publicIps,
  blocklists: config.blocklists,
  smarthost: config.smarthost ? `${config.smarthost.host}:${config.smarthost.port}` : null,
})

export const deliverySettingsOf = (config: Config): DeliverySettings => ({
  secret: config.secret,
  retrySchedule: config.deliveryRetrySchedule,
  attemptTimeoutMs: config.deliveryAttemptTimeoutSeconds * 1000,
})

/** The certificates of the deliveryCaFile setting; a file that cannot be used stops the start with why. */
export function caFileOf(path: string): string[] {
  try {
    return readCaFile(path)
  } catch (error) {
    throw new ConfigError(`Setting deliveryCaFile (MAILSTEAD_DELIVERY_CA_FILE): ${(error as Error).message}`)
  }
}
