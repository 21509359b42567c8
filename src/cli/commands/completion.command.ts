import { completionScript, completionTree, SHELLS, type Shell } from '../completion.ts'
import { CliError } from '../cli-error.ts'
import type { Command } from '../command.ts'

/** `completion` prints the script for the table it is given: the table holds it, so it takes the table late. */
export const completionCommand = (table: () => { commands: readonly Command[]; groups: Readonly<Record<string, string>> }): Command => ({
  name: 'completion',
  summary: `Print a shell completion script (${SHELLS.join(', ')}): eval "$(mailstead completion bash)"`,
  args: 'SHELL',
  // No --json: what it prints is a script for the shell to read.
  async run(context) {
    const shell = context.args[0] as Shell
    if (!SHELLS.includes(shell)) throw new CliError(`SHELL must be one of ${SHELLS.join(', ')}`)
    const { commands, groups } = table()
    context.io.out(completionScript(shell, completionTree(commands, groups)).replace(/\n$/, ''))
  },
})
