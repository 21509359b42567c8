import type { Parser } from './parsers.ts'
import type { Config } from './config-schema.ts'

/** One setting: its parsing, its default, and how the docs and `config show` write it. */
export interface Setting<K extends keyof Config = keyof Config> {
  key: K
  description: string
  /** Shown when a value is refused: what would have been accepted. */
  allowed: string
  parse: Parser<Config[K]>
  /** Settings are resolved in table order, so a default may use the ones above it. */
  fallback: (resolved: Partial<Config>) => Config[K]
  secret?: boolean
  /** The default as the docs describe it, when it depends on the machine or on other settings. */
  shownDefault?: string
  /** How the value is written back as text (config show, docs). */
  format?: (value: Config[K]) => string
}

export const setting = <K extends keyof Config>(definition: Setting<K>) => definition
