import type { Authenticator } from '../core/projects/authenticator.ts'
import { linkSettingsOf, sendSettingsOf } from '../settings-of.ts'
import { startSmtpListeners, type ListenerName } from '../smtp/listeners.ts'
import type { SharedParts } from './shared-parts.ts'

/**
 * The SMTP listeners, started: the MX listener for bounces, complaints and reports, and the relay
 * for applications that speak only SMTP, queueing through the same write path as HTTP.
 */
export function startSmtp(parts: SharedParts, authenticator: Authenticator, fallbacks?: Partial<Record<ListenerName, number>>) {
  const { config, db, write, resolver, clock, logger, metrics } = parts
  return startSmtpListeners(
    config,
    { db, write, secret: config.secret, clock, logger, resolver },
    { db, write, authenticator, sendSettings: sendSettingsOf(config), links: linkSettingsOf(config), clock, logger },
    logger,
    metrics,
    fallbacks,
  )
}
