import { readFileSync } from 'node:fs'
import { ConfigError } from './config-error.ts'
import { SETTINGS, envName, flagName, type Config, type Setting } from './config-schema.ts'

export type Source = 'default' | 'file' | 'environment' | 'flag'

export interface ConfigSources {
  /** Path of a JSON file whose keys are setting names (`httpPort`, `dataDir`, ...). */
  file?: string
  env?: Record<string, string | undefined>
  /** Flags by kebab-case name without dashes (`http-port`). */
  flags?: Record<string, string>
}

export interface LoadedConfig {
  config: Config
  sources: Record<keyof Config, Source>
}

export { ConfigError }

/** defaults < file < environment MAILSTEAD_* < flags; the result is frozen. */
export function loadConfig(sources: ConfigSources = {}): LoadedConfig {
  const fileValues = sources.file ? readConfigFile(sources.file) : {}
  const env = sources.env ?? {}
  const flags = sources.flags ?? {}
  const resolved: Record<string, unknown> = {}
  const origin: Record<string, Source> = {}
  for (const setting of SETTINGS as readonly Setting[]) {
    const candidates: [Source, string, string | undefined][] = [
      ['flag', `--${flagName(setting.key)}`, flags[flagName(setting.key)]],
      ['environment', envName(setting.key), env[envName(setting.key)]],
      ['file', `"${setting.key}" in ${sources.file}`, fileValues[setting.key]],
    ]
    const given = candidates.find(([, , text]) => text !== undefined && text !== '')
    if (given) {
      resolved[setting.key] = parseOrThrow(setting, given[1], given[2]!)
      origin[setting.key] = given[0]
    } else {
      resolved[setting.key] = setting.fallback(resolved as Partial<Config>)
      origin[setting.key] = 'default'
    }
  }
  checkTogether(resolved as unknown as Config)
  return {
    config: Object.freeze(resolved) as unknown as Config,
    sources: origin as Record<keyof Config, Source>,
  }
}

/** Settings that only make sense together. */
function checkTogether(config: Config): void {
  if ((config.tlsCert === null) !== (config.tlsKey === null)) {
    throw new ConfigError('Settings tlsCert (MAILSTEAD_TLS_CERT) and tlsKey (MAILSTEAD_TLS_KEY) go together: give both or neither.')
  }
}

function parseOrThrow(setting: Setting, where: string, text: string): unknown {
  const value = setting.parse(text)
  if (value !== undefined) return value
  const shown = setting.secret ? '(hidden)' : JSON.stringify(text)
  throw new ConfigError(`Setting ${setting.key} (${where}) is ${shown}; allowed: ${setting.allowed}.`)
}

function readConfigFile(path: string): Record<string, string> {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new ConfigError(`Config file ${path} cannot be read as JSON: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Config file ${path} must hold a JSON object of settings.`)
  }
  const known = new Set<string>(SETTINGS.map((s) => s.key))
  const values: Record<string, string> = {}
  for (const [key, value] of Object.entries(parsed)) {
    if (!known.has(key)) {
      throw new ConfigError(`Config file ${path} has an unknown setting "${key}"; known: ${[...known].join(', ')}.`)
    }
    // An object (the site rules) is a setting written as JSON.
    values[key] = Array.isArray(value) ? value.join(',') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)
  }
  return values
}

/**
 * The effective configuration, secrets masked: what `config show` prints. `value` is the text a
 * flag or MAILSTEAD_* variable would take; `typed` the value itself (number, boolean, string, list,
 * object or null), for JSON.
 */
export function describeConfig({ config, sources }: LoadedConfig) {
  return (SETTINGS as readonly Setting[]).map((setting) => {
    const value = config[setting.key]
    const text = setting.format ? setting.format(value as never) : String(value)
    return {
      key: setting.key,
      env: envName(setting.key),
      value: setting.secret ? mask(text) : text,
      typed: setting.secret ? (value === null || text === '' ? null : MASK) : (value as unknown),
      source: sources[setting.key],
    }
  })
}

const MASK = '********'
const mask = (text: string) => (text.length > 0 ? MASK : '')
