import { ConfigError } from './config-error.ts'
import { durationList } from './parsers.ts'

/** An automation rule as the configuration writes it: patterns as regular expression text. */
export interface AutomationOverride {
  codes?: number[]
  enhanced?: string
  text?: string
  action: 'throttle' | 'suspend'
  durationMs: number
}

/**
 * What the configuration says of one site: a built-in provider's name (gmail, microsoft, ...)
 * to change its values, or a new name with `match` to add a site rule of its own.
 */
export interface SiteOverride {
  match?: string[]
  label?: string
  connections?: number
  messagesPerConnection?: number
  messagesPerMinute?: number | null
  warmup?: boolean
  /** Tried before the site's own rules. */
  automation?: AutomationOverride[]
}

const KEYS = new Set(['match', 'label', 'connections', 'messagesPerConnection', 'messagesPerMinute', 'warmup', 'automation'])
const RULE_KEYS = new Set(['codes', 'enhanced', 'text', 'action', 'duration'])

/**
 * The deliverySites setting: a JSON object of site name to override, checked here so that a
 * mistake stops the server at start with a message that says where it is.
 */
export function parseSiteOverrides(text: string): Readonly<Record<string, SiteOverride>> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new ConfigError(`Setting deliverySites is not JSON: ${(error as Error).message}`)
  }
  if (!isObject(parsed)) throw new ConfigError('Setting deliverySites must be a JSON object of site name to settings')
  return Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name, siteOverride(name, value)]))
}

function siteOverride(name: string, value: unknown): SiteOverride {
  const at = `deliverySites.${name}`
  if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(name)) fail(at, 'a site name is 1 to 63 characters a-z, 0-9, . and -')
  if (!isObject(value)) fail(at, 'must be an object')
  for (const key of Object.keys(value)) if (!KEYS.has(key)) fail(`${at}.${key}`, `is not a site setting; known: ${[...KEYS].join(', ')}`)
  const out: SiteOverride = {}
  if (value.match !== undefined) out.match = strings(`${at}.match`, value.match, /^\.?[a-z0-9.-]+$/i, 'MX host name suffixes such as .example.com')
  if (value.label !== undefined) out.label = typeof value.label === 'string' ? value.label : fail(`${at}.label`, 'must be text')
  if (value.connections !== undefined) out.connections = integer(`${at}.connections`, value.connections, 1, 1000)
  if (value.messagesPerConnection !== undefined) out.messagesPerConnection = integer(`${at}.messagesPerConnection`, value.messagesPerConnection, 1, 100_000)
  if (value.messagesPerMinute !== undefined) out.messagesPerMinute = value.messagesPerMinute === null ? null : integer(`${at}.messagesPerMinute`, value.messagesPerMinute, 1, 10_000_000)
  if (value.warmup !== undefined) out.warmup = typeof value.warmup === 'boolean' ? value.warmup : fail(`${at}.warmup`, 'must be true or false')
  if (value.automation !== undefined) {
    if (!Array.isArray(value.automation)) fail(`${at}.automation`, 'must be a list of rules')
    out.automation = value.automation.map((rule, i) => automationOverride(`${at}.automation[${i}]`, rule))
  }
  return out
}

function automationOverride(at: string, rule: unknown): AutomationOverride {
  if (!isObject(rule)) fail(at, 'must be an object')
  for (const key of Object.keys(rule)) if (!RULE_KEYS.has(key)) fail(`${at}.${key}`, `is not a rule setting; known: ${[...RULE_KEYS].join(', ')}`)
  if (rule.action !== 'throttle' && rule.action !== 'suspend') fail(`${at}.action`, 'must be "throttle" or "suspend"')
  const duration = typeof rule.duration === 'string' ? durationList(rule.duration) : undefined
  if (!duration || duration.length !== 1) fail(`${at}.duration`, 'must be one duration such as 30m or 2h')
  const out: AutomationOverride = { action: rule.action, durationMs: duration[0]! }
  if (rule.codes !== undefined) {
    if (!Array.isArray(rule.codes)) fail(`${at}.codes`, 'must be a list of reply codes')
    out.codes = rule.codes.map((code, i) => integer(`${at}.codes[${i}]`, code, 200, 599))
  }
  for (const key of ['enhanced', 'text'] as const) {
    if (rule[key] === undefined) continue
    if (typeof rule[key] !== 'string') fail(`${at}.${key}`, 'must be a regular expression as text')
    try {
      new RegExp(rule[key] as string, 'i')
    } catch (error) {
      fail(`${at}.${key}`, `is not a regular expression: ${(error as Error).message}`)
    }
    out[key] = rule[key] as string
  }
  if (!out.codes && !out.enhanced && !out.text) fail(at, 'needs at least one of codes, enhanced, text')
  return out
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

function fail(at: string, problem: string): never {
  throw new ConfigError(`Setting ${at} ${problem}`)
}

function integer(at: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(at, `must be an integer from ${min} to ${max}`)
  return value
}

function strings(at: string, value: unknown, pattern: RegExp, what: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string' || !pattern.test(item))) fail(at, `must be a list of ${what}`)
  return value.map((item) => (item as string).toLowerCase())
}
