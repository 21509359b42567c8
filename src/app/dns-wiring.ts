import { createServerChecks } from '../dns/self-checks.ts'
import { domainSettingsOf, selfCheckSettingsOf } from '../settings-of.ts'
import { createDomainChecker } from '../workers/domain-checker.ts'
import type { SharedParts } from './shared-parts.ts'

/** The DNS checks: the sending domains' records (a singleton loop) and the server's own reputation self-checks. */
export function wireDns(parts: SharedParts) {
  const { config, db, write, resolver, clock, logger, metrics, claimant } = parts
  const domainSettings = domainSettingsOf(config)
  const serverChecks = createServerChecks({ db, write, resolver, clock, logger, settings: selfCheckSettingsOf(config) })
  const checker = createDomainChecker({ db, write, resolver, clock, logger, settings: domainSettings, metrics, server: serverChecks, claimant })
  return { domainSettings, serverChecks, checker }
}

export type DnsParts = ReturnType<typeof wireDns>
