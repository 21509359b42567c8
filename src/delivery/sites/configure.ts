import { ConfigError } from '../../config/config-error.ts'
import type { Config } from '../../config/config-schema.ts'
import type { AutomationOverride, SiteOverride } from '../../config/sites.ts'
import { DEFAULT_AUTOMATION, SITE_RULES, type AutomationRule, type SiteRule } from './rules.ts'
import type { SiteSettings } from './site-state.ts'

/** Messages one connection carries for a site that no rule limits. */
const DEFAULT_MESSAGES_PER_CONNECTION = 100

/** How delivery is shaped: site rules, reply automation and the limits of every other site. */
export interface Shaping {
  rules: SiteRule[]
  automation: readonly AutomationRule[]
  settings: SiteSettings
}

/**
 * The site rules in force: the built-in providers with the configuration's overrides, and the
 * configuration's own sites. With shaping off there are none: every site gets the default
 * connections and nothing else.
 */
export function shapingOf(config: Config, warmupOn: boolean): Shaping {
  const settings: SiteSettings = {
    defaults: { connections: config.deliveryPerDomain, messagesPerConnection: DEFAULT_MESSAGES_PER_CONNECTION, messagesPerMinute: null },
    warmup: { on: config.deliveryShaping && warmupOn, schedule: config.warmupSchedule },
  }
  if (!config.deliveryShaping) return { rules: [], automation: [], settings }
  const rules = SITE_RULES.map((rule) => (config.deliverySites[rule.name] ? withOverride(rule, config.deliverySites[rule.name]!) : rule))
  for (const [name, override] of Object.entries(config.deliverySites)) {
    if (SITE_RULES.some((rule) => rule.name === name)) continue
    if (!override.match) throw new ConfigError(`Setting deliverySites.${name} is a new site: give "match", its MX host name suffixes (built-in sites: ${SITE_RULES.map((r) => r.name).join(', ')})`)
    rules.unshift(withOverride({ name, label: name, match: [], limits: {}, warmup: false, automation: [] }, override))
  }
  return { rules, automation: DEFAULT_AUTOMATION, settings }
}

function withOverride(rule: SiteRule, override: SiteOverride): SiteRule {
  const limits = { ...rule.limits }
  if (override.connections !== undefined) limits.connections = override.connections
  if (override.messagesPerConnection !== undefined) limits.messagesPerConnection = override.messagesPerConnection
  if (override.messagesPerMinute !== undefined) limits.messagesPerMinute = override.messagesPerMinute
  return {
    name: rule.name,
    label: override.label ?? rule.label,
    match: override.match ?? rule.match,
    limits,
    warmup: override.warmup ?? rule.warmup,
    automation: [...(override.automation ?? []).map(automationRule), ...rule.automation],
  }
}

const automationRule = (rule: AutomationOverride): AutomationRule => ({
  ...(rule.codes && { codes: rule.codes }),
  ...(rule.enhanced && { enhanced: new RegExp(rule.enhanced, 'i') }),
  ...(rule.text && { text: new RegExp(rule.text, 'i') }),
  action: rule.action,
  durationMs: rule.durationMs,
})
