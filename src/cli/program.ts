import { Command as Program, CommanderError, Help, Option } from 'commander'
import { SETTINGS, envName, flagName } from '../config/config-schema.ts'
import type { Command, FlagSpec, Io } from './command.ts'
import { CliError } from './cli-error.ts'

/** A word that groups commands (`project`), with what its commands are about. */
export type Groups = Readonly<Record<string, string>>

/** What the program hands a command it runs: the words and flags given to it, and the global ones. */
export interface Invocation {
  command: Command
  args: string[]
  flags: Record<string, string | true>
  /** --config FILE, when given. */
  configFile: string | undefined
  /** Setting flags by their kebab-case name (`http-port`), as loadConfig takes them. */
  settingFlags: Record<string, string>
}

const SETTINGS_NOTE =
  'Every command also takes --config FILE (JSON settings) and a flag per setting, such as --data-dir DIR or\n' +
  '--http-port N (each is also MAILSTEAD_<NAME>): "mailstead config show" lists them all.'

/**
 * The commander program of the command table: one commander command per Command (nested under
 * its group word), its flags and positional arguments declared, so that commander checks them,
 * suggests the nearest name for a typo and writes help. Output goes through `io`; commander never
 * exits the process: its exits become CommanderErrors that runCli turns into exit codes.
 */
export function buildProgram(commands: readonly Command[], groups: Groups, version: string, io: Io, run: (invocation: Invocation) => Promise<void>): Program {
  const settingOptions = new Set([
    new Option('--config <file>', 'JSON file of settings, by setting name'),
    ...SETTINGS.map((setting) => new Option(`--${flagName(setting.key)} <value>`, `${setting.description} (${envName(setting.key)})`)),
  ])
  const program = new Program('mailstead')
    .description('Mailstead: a self-hosted email platform in one process.')
    .usage('<command> [arguments] [flags]')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text.replace(/\n$/, '')), writeErr: (text) => io.err(text.replace(/\n$/, '')) })
    .configureHelp(helpConfiguration(settingOptions))
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage)')
    .helpOption('-h, --help', 'Print help')
    .helpCommand(false)
    .version(version, '-V, --version', 'Print the version')
    .addHelpText('after', `\n${SETTINGS_NOTE}\nRun "mailstead help <command>" for a command's arguments and flags.`)
  for (const option of settingOptions) program.addOption(option)

  const groupCommands = new Map<string, Program>()
  const parentOf = (words: string[]): Program => {
    if (words.length === 1) return program
    const word = words[0]!
    let group = groupCommands.get(word)
    if (!group) {
      const members = commands.filter((c) => c.name.startsWith(`${word} `)).map((c) => c.name.split(' ')[1])
      group = program.command(word).description(`${groups[word] ?? word}: ${members.join(', ')}`).helpCommand(false)
      groupCommands.set(word, group)
    }
    return group
  }

  for (const command of commands) {
    const words = command.name.split(' ')
    const leaf = parentOf(words).command(words.at(-1)!).description(command.summary).addHelpText('after', `\n${SETTINGS_NOTE}`)
    for (const arg of (command.args ?? '').split(' ').filter(Boolean)) leaf.argument(arg.startsWith('[') ? arg : `<${arg}>`)
    const names = new Map<string, string>()
    for (const [name, spec] of Object.entries(command.flags ?? {})) {
      const option = optionOf(name, spec)
      names.set(option.attributeName(), name)
      leaf.addOption(option)
    }
    leaf.action(async () => {
      const flags = Object.fromEntries(Object.entries(leaf.opts()).flatMap(([key, value]) => (value === undefined ? [] : [[names.get(key)!, value as string | true]])))
      const globals = program.opts() as Record<string, string | undefined>
      await run({
        command,
        args: leaf.processedArgs.filter((arg): arg is string => typeof arg === 'string'),
        flags,
        configFile: globals.config,
        settingFlags: Object.fromEntries(SETTINGS.flatMap((s) => (globals[s.key] === undefined ? [] : [[flagName(s.key), globals[s.key]!]]))),
      })
    })
  }

  program
    .command('help')
    .description('Print the help of mailstead, or of a command')
    .argument('[command...]')
    .action((words: string[]) => helpOf(program, words))
  return program
}

function optionOf(name: string, spec: FlagSpec): Option {
  const option = new Option(spec.boolean ? `--${name}` : `--${name} <${spec.value ?? name}>`, spec.description)
  return spec.required ? option.makeOptionMandatory() : option
}

type Helper = Help & { printing?: boolean }

/**
 * Help leaves the settings' flags out (there are dozens; config show lists them), but typo
 * suggestions still offer them: commander asks the same visibleOptions for both, and only help
 * prepares a context first. Help says which flags must be given, which commander does not show.
 */
function helpConfiguration(settingOptions: ReadonlySet<Option>): Partial<Help> {
  return {
    sortOptions: false,
    prepareContext(this: Helper, context) {
      this.printing = true
      Help.prototype.prepareContext.call(this, context)
    },
    visibleOptions(this: Helper, command) {
      const options = Help.prototype.visibleOptions.call(this, command)
      return this.printing ? options.filter((option) => !settingOptions.has(option)) : options
    },
    optionDescription(this: Helper, option) {
      const description = Help.prototype.optionDescription.call(this, option)
      return option.mandatory ? `${description} (required)` : description
    },
  }
}

/** `help queue stats`: the help of the command those words name; an unknown word is refused with the nearest names. */
async function helpOf(program: Program, words: string[]): Promise<void> {
  let command = program
  for (const [i, word] of words.entries()) {
    const next = command.commands.find((c) => c.name() === word)
    if (!next && command.commands.length === 0) throw new CliError(`${words.slice(0, i).join(' ')} has no subcommands`)
    // The parser's own refusal with its suggestion: a group given an unknown word runs nothing.
    if (!next) return void (await command.parseAsync([word], { from: 'user' }))
    command = next
    if (i === words.length - 1) break
  }
  command.help()
}

export { CommanderError }
