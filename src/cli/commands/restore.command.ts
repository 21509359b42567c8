import { existsSync, readFileSync, renameSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { MIGRATIONS } from '../../../migrations/index.ts'
import { databasePath } from '../../settings-of.ts'
import { refuseOnPostgres } from './backup.command.ts'
import type { LoadedConfig } from '../../config/load.ts'
import { secretPath } from '../../config/secret.ts'
import { DKIM_KEY_PURPOSE } from '../../core/domains/domains.service.ts'
import { signingSecrets } from '../../core/webhooks/webhooks.service.ts'
import { signingSecretOf } from '../../core/workflows/workflows.service.ts'
import { DatabaseFileError, databaseUse, firstValue, inspectDatabase, replaceDatabase, type DatabaseSummary } from '../../db/backup.ts'
import { AppError } from '../../lib/errors.ts'
import { makePrivateDir, writeFileAtomically } from '../../lib/files.ts'
import { unseal } from '../../lib/sealed.ts'
import { CliError } from '../cli-error.ts'
import { confirmOrStop, JSON_FLAG, print, YES_FLAG, type Command } from '../command.ts'
import { formatBytes, SECRET_ORIGIN, secretBeside } from './backup.command.ts'

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'Put a backup in place of the database (and the secret, if it has one); the server must be stopped',
  args: 'PATH',
  flags: { ...YES_FLAG, ...JSON_FLAG },
  async run(context) {
    if (!context.args[0]) throw new CliError('Give the backup to restore: mailstead restore PATH')
    const backup = resolve(context.args[0])
    refuseOnPostgres(context.loadConfig().config, 'restore')
    if (!existsSync(backup) || !statSync(backup).isFile()) throw new AppError(404, 'NOT_FOUND', `There is no backup file at ${backup}`)
    const loaded = context.loadConfig()
    const target = databasePath(loaded.config)
    const summary = checkBackup(backup)
    const carried = readCarriedSecret(backup)
    const keysChecked = checkSecretOpensKeys(backup, loaded, carried)
    refuseWhileOpen(target, context.io.err)
    await confirmOrStop(context, `Replace the database ${target} with the backup ${backup}? What was written since the backup was made is lost`)
    // The question may have waited a while: a server started meanwhile must not lose its file.
    refuseWhileOpen(target)

    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    const secretFile = secretPath(loaded.config.dataDir)
    makePrivateDir(dirname(target))
    if (carried !== null) keepAndWriteSecret(secretFile, carried, `${secretFile}.replaced-${stamp}`)
    const replaced = existsSync(target) ? `${target}.replaced-${stamp}` : null
    replaceDatabase(backup, target, replaced ?? undefined)

    const rows = Object.values(summary.tables).reduce((sum, n) => sum + n, 0)
    const result = { path: target, from: backup, bytes: summary.bytes, tables: summary.tables, rows, secret: carried === null ? null : secretFile, replaced }
    print(context, result, () => [
      `Restored ${backup} (${Object.keys(summary.tables).length} tables, ${rows} rows, ${formatBytes(summary.bytes)}) into ${target}; migrations apply when the server starts`,
      secretNote(loaded, carried, secretFile, keysChecked),
      ...(replaced ? [`The database it replaced is kept as ${replaced}: delete it once the restore is confirmed`] : []),
    ])
  },
}

function checkBackup(backup: string): DatabaseSummary {
  // Only the file itself is copied: commits still in a WAL beside it would be left behind.
  if (existsSync(`${backup}-wal`) && statSync(`${backup}-wal`).size > 0) {
    throw new AppError(422, 'INVALID_BACKUP', `Not restored: ${backup} has a WAL beside it, so it is (a copy of) a database in use, not a backup; make one with mailstead backup`)
  }
  let summary: DatabaseSummary
  try {
    summary = inspectDatabase(backup)
  } catch (error) {
    if (error instanceof DatabaseFileError) throw new AppError(422, 'INVALID_BACKUP', `Not restored: ${error.message}`)
    throw error
  }
  const known = new Set(MIGRATIONS.map((m) => m.name))
  const unknown = summary.migrations.filter((name) => !known.has(name))
  if (unknown.length > 0) {
    throw new AppError(422, 'INVALID_BACKUP', `Not restored: ${backup} was made by a newer Mailstead (migration ${unknown[0]} is unknown to this one); restore it with that version`)
  }
  return summary
}

function readCarriedSecret(backup: string): string | null {
  const path = secretBeside(backup)
  if (!existsSync(path)) return null
  const secret = readFileSync(path, 'utf8').trim()
  if (secret.length < 32) throw new AppError(422, 'INVALID_BACKUP', `Not restored: ${path} does not hold a secret (at least 32 characters)`)
  return secret
}

/**
 * DKIM keys and workflow and webhook signing secrets are sealed with the server secret: a database restored
 * under another secret could not sign mail. The secret the server will use (the backup's own when
 * the data directory's file is in use, else the configured one) must open one of them.
 */
function checkSecretOpensKeys(backup: string, { config, sources }: LoadedConfig, carried: string | null): boolean {
  const fromDataDir = sources.secret === 'default'
  const secret = fromDataDir ? (carried ?? config.secret) : config.secret
  const open = sealedProbe(backup)
  if (!open) return false
  try {
    open(secret)
    return true
  } catch {
    // explained below
  }
  const problem =
    fromDataDir && carried !== null
      ? `${secretBeside(backup)} does not open the backup's keys: it belongs to another backup`
      : fromDataDir
        ? `the backup carries no secret (it was made with MAILSTEAD_SECRET, --secret or a config file) and this data directory's secret does not open its keys: give the secret it was made with (MAILSTEAD_SECRET)`
        : `the secret from ${SECRET_ORIGIN[sources.secret]} does not open the backup's keys: give the secret it was made with${carried !== null ? `, or leave it unset to use the backup's own (${secretBeside(backup)})` : ''}`
  throw new AppError(422, 'WRONG_SECRET', `Not restored: ${problem}`)
}

/** What the operator should know of the secret the restored database goes with. */
function secretNote({ sources }: LoadedConfig, carried: string | null, secretFile: string, keysChecked: boolean): string {
  const origin = SECRET_ORIGIN[sources.secret]
  if (carried !== null) return `Its secret is now ${secretFile}${sources.secret === 'default' ? '' : `; the server takes ${origin}'s, which opens the same keys`}`
  return `The backup carries no secret: keep running the server with ${origin}'s${keysChecked ? ', which opens its keys' : ''}`
}

/** Where sealed values live, and how each is opened with a server secret (throwing when it does not open). */
const SEALED: Array<{ table: string; column: string; open: (secret: string, value: string) => unknown }> = [
  { table: 'domains', column: 'dkim_private_key', open: (secret, value) => unseal(secret, DKIM_KEY_PURPOSE, value) },
  { table: 'workflows', column: 'signing_secret', open: (secret, value) => signingSecretOf(secret, { signing_secret: value }) },
  { table: 'webhooks', column: 'signing_secret', open: (secret, value) => signingSecrets(secret, { signing_secret: value, previous_secret: null, previous_secret_until: null }, 0) },
]

/** Opens one sealed value of the backup with a secret (throws when it does not open); none when it has none. */
function sealedProbe(backup: string): ((secret: string) => void) | undefined {
  const found = firstValue(backup, SEALED)
  if (!found) return undefined
  const { open } = SEALED[found.index]!
  return (secret) => void open(secret, found.value)
}

function refuseWhileOpen(database: string, warn?: (line: string) => void): void {
  const use = databaseUse(database)
  if (use === 'open') {
    throw new AppError(409, 'IN_USE', `Not restored: ${database} is open in another process (a running server, or another mailstead command); stop it first`)
  }
  // A damaged file is what a restore is often for; whether a server has it open cannot be asked then.
  if (use === 'unreadable') warn?.(`warning: ${database} is not a readable database, so whether a server has it open cannot be checked: make sure it is stopped`)
}

/** Writes the backup's secret, keeping a different one that was there beside it. */
function keepAndWriteSecret(path: string, secret: string, keepAs: string): void {
  if (existsSync(path) && readFileSync(path, 'utf8').trim() === secret) return
  if (existsSync(path)) renameSync(path, keepAs)
  writeFileAtomically(path, secret + '\n', 0o600)
}
