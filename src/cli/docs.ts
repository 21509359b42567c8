import { COMMANDS } from './index.ts'
import type { Command } from './command.ts'

const usageOf = (command: Command) =>
  [command.name, command.args, ...Object.entries(command.flags ?? {}).map(([name, spec]) => (spec.boolean ? `[--${name}]` : `[--${name} ${name.toUpperCase()}]`))]
    .filter(Boolean)
    .join(' ')

/** The CLI table of the README, made from the command table so the two cannot drift. */
export function commandTable(): string {
  const rows = COMMANDS.map((command) => `| \`${usageOf(command).replace(/\|/g, '\\|')}\` | ${command.summary.replace(/\|/g, '\\|')} |`)
  return ['| Command | What it does |', '|---|---|', ...rows].join('\n')
}
