import { migrationsFor } from '../../migrations/index.ts'
import { databaseTarget } from '../settings-of.ts'
import { ConfigError, loadConfig, type LoadedConfig } from '../config/load.ts'
import { SETTINGS, flagName } from '../config/schema.ts'
import { openDatabase } from '../db/client.ts'
import { DatabaseError } from '../db/errors.ts'
import { MigrationError, migrate } from '../db/migrator.ts'
import { AppError } from '../lib/errors.ts'
import { CliError, parseArgs } from './args.ts'
import type { Command, Context, Io } from './command.ts'
import { backupCommand } from './commands/backup.ts'
import { configShowCommand } from './commands/config.ts'
import { contactsExportCommand, contactsImportCommand } from './commands/contacts.ts'
import {
  domainAddCommand,
  domainListCommand,
  domainRecordsCommand,
  domainRemoveCommand,
  domainVerifyCommand,
} from './commands/domain.ts'
import { keyCreateCommand, keyListCommand, keyRevokeCommand } from './commands/key.ts'
import { healthCommand } from './commands/health.ts'
import { inboundReportsCommand, inboundShowCommand } from './commands/inbound.ts'
import { doctorCommand } from './commands/doctor.ts'
import { migrateCommand } from './commands/migrate.ts'
import { pruneCommand } from './commands/prune.ts'
import { restoreCommand } from './commands/restore.ts'
import {
  projectCreateCommand,
  projectDisableCommand,
  projectEnableCommand,
  projectListCommand,
  projectRateLimitCommand,
  projectSendRateCommand,
  projectSetSenderCommand,
} from './commands/project.ts'
import { queueCancelCommand, queueListCommand, queueRetryCommand, queueSitesCommand, queueStatsCommand } from './commands/queue.ts'
import { suppressionAddCommand, suppressionListCommand, suppressionRemoveCommand } from './commands/suppression.ts'
import { serveCommand } from './commands/serve.ts'
import { userCreateCommand, userDisableCommand, userEnableCommand, userListCommand, userResetPasswordCommand } from './commands/user.ts'

export const COMMANDS: readonly Command[] = [
  serveCommand,
  healthCommand,
  doctorCommand,
  migrateCommand,
  backupCommand,
  restoreCommand,
  pruneCommand,
  configShowCommand,
  projectCreateCommand,
  projectListCommand,
  projectDisableCommand,
  projectEnableCommand,
  projectRateLimitCommand,
  projectSetSenderCommand,
  projectSendRateCommand,
  userCreateCommand,
  userListCommand,
  userResetPasswordCommand,
  userDisableCommand,
  userEnableCommand,
  keyCreateCommand,
  keyListCommand,
  keyRevokeCommand,
  domainAddCommand,
  domainListCommand,
  domainRecordsCommand,
  domainVerifyCommand,
  domainRemoveCommand,
  queueStatsCommand,
  queueSitesCommand,
  queueListCommand,
  queueRetryCommand,
  queueCancelCommand,
  suppressionListCommand,
  suppressionAddCommand,
  suppressionRemoveCommand,
  inboundReportsCommand,
  inboundShowCommand,
  contactsImportCommand,
  contactsExportCommand,
]

const SETTING_FLAGS = new Set(SETTINGS.map((s) => flagName(s.key)))
const GLOBAL_FLAGS = new Set(['config', 'help', ...SETTING_FLAGS])
const BOOLEAN_FLAGS = new Set([
  'help',
  ...COMMANDS.flatMap((c) => Object.entries(c.flags ?? {}).filter(([, f]) => f.boolean).map(([name]) => name)),
])

/** Runs one command line; returns the exit code. Never exits the process itself. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  try {
    const { words, flags } = parseArgs(argv, BOOLEAN_FLAGS)
    const command = findCommand(words)
    if (!command || flags.help) {
      io.out(command ? commandHelp(command) : generalHelp())
      return command || flags.help || words.length === 0 ? 0 : unknownCommand(io, words)
    }
    checkFlags(command, flags)
    await command.run(createContext(command, words, flags, io))
    return 0
  } catch (error) {
    return reportError(io, error)
  }
}

function findCommand(words: string[]): Command | undefined {
  return [...COMMANDS]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((command) => command.name.split(' ').every((word, i) => words[i] === word))
}

function checkFlags(command: Command, flags: Record<string, string | true>) {
  for (const name of Object.keys(flags)) {
    if (!GLOBAL_FLAGS.has(name) && !(command.flags && name in command.flags)) {
      throw new CliError(`Unknown flag --${name} for "${command.name}" (see mailstead ${command.name} --help)`)
    }
  }
}

function createContext(command: Command, words: string[], flags: Record<string, string | true>, io: Io): Context {
  const args = words.slice(command.name.split(' ').length)
  const settingFlags = Object.fromEntries(
    Object.entries(flags).filter(([name, value]) => SETTING_FLAGS.has(name) && typeof value === 'string'),
  ) as Record<string, string>
  let loaded: LoadedConfig | undefined
  const load = () =>
    (loaded ??= loadConfig({ file: typeof flags.config === 'string' ? flags.config : undefined, env: io.env, flags: settingFlags }))
  return {
    args,
    flags,
    io,
    loadConfig: load,
    async withDb(work) {
      const config = load()
      const database = await openDatabase(databaseTarget(config.config))
      try {
        await migrate(database.db, migrationsFor(database.dialect))
        return await work(database.db, config)
      } finally {
        await database.close()
      }
    },
  }
}

function unknownCommand(io: Io, words: string[]): number {
  io.err(`Unknown command: ${words.join(' ')}`)
  return 2
}

function reportError(io: Io, error: unknown): number {
  if (error instanceof CliError) {
    io.err(`error: ${error.message}`)
    return 2
  }
  if (error instanceof AppError || error instanceof ConfigError || error instanceof MigrationError || error instanceof DatabaseError) {
    io.err(`error: ${error.message}`)
    return 1
  }
  io.err(`error: ${(error as Error)?.stack ?? String(error)}`)
  return 1
}

const usage = (command: Command) =>
  [`mailstead ${command.name}`, command.args, ...Object.keys(command.flags ?? {}).map((f) => `[--${f}]`)].filter(Boolean).join(' ')

function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'Mailstead: a self-hosted email platform in one process.',
    '',
    'Usage: mailstead <command> [arguments] [--flags]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command also takes --config FILE (JSON settings) and a flag per setting, such as',
    '--data-dir DIR or --http-port N: "mailstead config show" lists them all.',
    'Run "mailstead <command> --help" for its flags.',
  ].join('\n')
}

function commandHelp(command: Command): string {
  const flags = Object.entries(command.flags ?? {}).map(([name, spec]) => `  --${name.padEnd(10)} ${spec.description}`)
  return [`Usage: ${usage(command)}`, '', command.summary, ...(flags.length ? ['', 'Flags:', ...flags] : [])].join('\n')
}
