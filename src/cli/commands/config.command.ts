import { describeConfig } from '../../config/load.ts'
import { JSON_FLAG, print, table, type Command } from '../command.ts'

export const configShowCommand: Command = {
  name: 'config show',
  summary: 'Print the effective configuration, secrets masked, with where each value came from',
  flags: JSON_FLAG,
  async run(context) {
    const settings = describeConfig(context.loadConfig())
    // Each setting by name: its value in its own type (secrets masked), where it came from, its variable.
    const json = Object.fromEntries(settings.map((s) => [s.key, { value: s.typed, source: s.source, env: s.env }]))
    print(context, json, () =>
      table([['SETTING', 'ENVIRONMENT', 'VALUE', 'FROM'], ...settings.map((s) => [s.key, s.env, s.value, s.source])]),
    )
  },
}
