import { SETTINGS, envName, flagName, type Setting } from './config-schema.ts'

/** The configuration table of docs/configuration.md, made from the settings table so the two cannot drift. */
export function configurationTable(): string {
  const rows = (SETTINGS as readonly Setting[]).map((s) => {
    const shown = s.shownDefault ?? `\`${formatted(s, s.fallback({}))}\``
    return `| \`${envName(s.key)}\` | \`--${flagName(s.key)}\` | ${s.description} | ${shown} | ${s.allowed} |`
  })
  return ['| Environment | Flag | What it sets | Default | Allowed |', '|---|---|---|---|---|', ...rows].join('\n')
}

const formatted = (setting: Setting, value: unknown) => (setting.format ? setting.format(value as never) : String(value))
