import { COMMANDS } from './index.ts'
import type { Command, FlagSpec } from './command.ts'

/** A flag as help writes it: `--project <id>` when it must be given, `[--json]` when it may. */
const flagUsage = (name: string, spec: FlagSpec) => {
  const flag = spec.boolean ? `--${name}` : `--${name} <${spec.value ?? name}>`
  return spec.required ? flag : `[${flag}]`
}

const usageOf = (command: Command) =>
  [command.name, command.args, ...Object.entries(command.flags ?? {}).map(([name, spec]) => flagUsage(name, spec))].filter(Boolean).join(' ')

/** The CLI table of docs/cli.md, made from the command table so the two cannot drift. */
export function commandTable(): string {
  const rows = COMMANDS.map((command) => `| \`${usageOf(command).replace(/\|/g, '\\|')}\` | ${command.summary.replace(/\|/g, '\\|')} |`)
  return ['| Command | What it does |', '|---|---|', ...rows].join('\n')
}
