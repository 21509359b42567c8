import { migrationsFor } from '../../migrations/index.ts'
import { databaseTarget } from '../settings-of.ts'
import { ConfigError, loadConfig, type LoadedConfig } from '../config/load.ts'
import { openDatabase } from '../db/client.ts'
import { DatabaseError } from '../db/database-error.ts'
import { MigrationError, migrate } from '../db/migrator.ts'
import { AppError } from '../lib/errors.ts'
import packageJson from '../../package.json' with { type: 'json' }
import { getProject } from '../core/projects/projects.service.ts'
import { CliError } from './cli-error.ts'
import { idArg } from './command.ts'
import { buildProgram, CommanderError, type Invocation } from './program.ts'
import type { Command, Context, Io } from './command.ts'
import { backupCommand } from './commands/backup.command.ts'
import { configShowCommand } from './commands/config.command.ts'
import { contactsExportCommand, contactsImportCommand } from './commands/contacts.command.ts'
import {
  domainAddCommand,
  domainListCommand,
  domainRecordsCommand,
  domainRemoveCommand,
  domainVerifyCommand,
} from './commands/domain.command.ts'
import { keyCreateCommand, keyListCommand, keyRevokeCommand } from './commands/key.command.ts'
import { healthCommand } from './commands/health.command.ts'
import { inboundReportsCommand, inboundShowCommand } from './commands/inbound.command.ts'
import { doctorCommand } from './commands/doctor.command.ts'
import { migrateCommand } from './commands/migrate.command.ts'
import { pruneCommand } from './commands/prune.command.ts'
import { restoreCommand } from './commands/restore.command.ts'
import {
  projectCreateCommand,
  projectDisableCommand,
  projectEnableCommand,
  projectListCommand,
  projectRateLimitCommand,
  projectSendRateCommand,
  projectSetSenderCommand,
  projectSetSandboxCommand,
} from './commands/project.command.ts'
import { queueCancelCommand, queueListCommand, queueRetryCommand, queueSitesCommand, queueStatsCommand } from './commands/queue.command.ts'
import { suppressionAddCommand, suppressionListCommand, suppressionRemoveCommand } from './commands/suppression.command.ts'
import { serveCommand } from './commands/serve.command.ts'
import { sendCommand } from './commands/send.command.ts'
import { completionCommand } from './commands/completion.command.ts'
import { webhookAddCommand, webhookListCommand, webhookRemoveCommand } from './commands/webhook.command.ts'
import { userCreateCommand, userDisableCommand, userEnableCommand, userListCommand, userResetPasswordCommand, userSetInstanceOwnerCommand } from './commands/user.command.ts'

/** The version of package.json, built into the binary: what --version prints. */
export const VERSION = packageJson.version

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
  projectSetSandboxCommand,
  projectSendRateCommand,
  userCreateCommand,
  userListCommand,
  userResetPasswordCommand,
  userDisableCommand,
  userEnableCommand,
  userSetInstanceOwnerCommand,
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
  sendCommand,
  webhookListCommand,
  webhookAddCommand,
  webhookRemoveCommand,
  completionCommand(() => ({ commands: COMMANDS, groups: GROUPS })),
]

/** The words that group commands, and what each group is about: the first line of their help. */
export const GROUPS = {
  config: 'The configuration',
  project: 'Projects, their limits and default sender',
  user: 'Console accounts',
  key: 'API keys of a project',
  domain: 'Sending domains and their DNS records',
  queue: 'The delivery queue and destination sites',
  suppression: "A project's suppression list",
  inbound: 'Bounces and complaints received',
  contacts: 'Contacts as CSV',
  webhook: "A project's webhooks",
} as const

/** Runs one command line; returns the exit code. Never exits the process itself. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const program = buildProgram(COMMANDS, GROUPS, VERSION, io, (invocation) => invocation.command.run(createContext(invocation, io)))
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return 0
  } catch (error) {
    // Help and --version end with exit code 0; a command line the parser refused, with 2.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2
    return reportError(io, error)
  }
}

function createContext({ args, flags, configFile, settingFlags }: Invocation, io: Io): Context {
  let loaded: LoadedConfig | undefined
  const load = () => (loaded ??= loadConfig({ file: configFile, env: io.env, flags: settingFlags }))
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
        // Every command's --project names a project that exists, before it writes or reads under it:
        // a missing one is "Project 9 not found", not a foreign key's failure or an empty list.
        if (typeof flags.project === 'string') await getProject(database.db, idArg(flags.project, '--project'))
        return await work(database.db, config)
      } finally {
        await database.close()
      }
    },
  }
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
  // Unforeseen: still one line, the message; the stack only for whoever asked for debug logs.
  io.err(`error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)
  if (io.env.MAILSTEAD_LOG_LEVEL === 'debug' && error instanceof Error && error.stack) io.err(error.stack)
  return 1
}
