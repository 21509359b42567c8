import { existsSync, lstatSync, readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { databasePath } from '../../settings-of.ts'
import type { Source } from '../../config/load.ts'
import type { Config } from '../../config/config-schema.ts'
import { secretPath } from '../../config/secret.ts'
import { DatabaseFileError, snapshotDatabase } from '../../db/backup.ts'
import { FileExistsError, writeNewFile } from '../../lib/files.ts'
import { AppError } from '../../lib/errors.ts'
import { CliError } from '../cli-error.ts'
import { JSON_FLAG, print, type Command } from '../command.ts'

/** Where a backup keeps the data directory's secret: beside the database, named after it. */
export const secretBeside = (backup: string) => `${backup}.secret`

/** Where a secret that is not the data directory's file comes from, for the operator. */
export const SECRET_ORIGIN: Record<Source, string> = {
  default: 'the data directory',
  environment: 'MAILSTEAD_SECRET',
  flag: '--secret',
  file: 'the config file',
}

/**
 * `backup` and `restore` copy SQLite's file. With the data in PostgreSQL they say so and name
 * PostgreSQL's own tools, which a team running it already uses.
 */
export function refuseOnPostgres(config: Config, command: 'backup' | 'restore'): void {
  if (!config.databaseUrl) return
  const tool =
    command === 'backup'
      ? 'back it up with pg_dump (pg_dump --format=custom --file=mailstead.dump "$MAILSTEAD_DATABASE_URL") and keep the secret in the data directory with it'
      : 'restore it with pg_restore into an empty database (pg_restore --dbname="$MAILSTEAD_DATABASE_URL" mailstead.dump) with the server stopped'
  throw new AppError(422, 'NOT_SQLITE', `mailstead ${command} is for SQLite's database file; MAILSTEAD_DATABASE_URL (--database-url) keeps the data in PostgreSQL: ${tool}`)
}

export const backupCommand: Command = {
  name: 'backup',
  summary: 'Copy the database (and the generated secret) to a new file while the server runs',
  args: 'PATH',
  flags: JSON_FLAG,
  async run(context) {
    if (!context.args[0]) throw new CliError('Give the file to write the backup to: mailstead backup PATH')
    const target = resolve(context.args[0])
    const { config, sources } = context.loadConfig()
    refuseOnPostgres(config, 'backup')
    const source = databasePath(config)
    if (!existsSync(source)) throw new AppError(404, 'NOT_FOUND', `There is no database at ${source}: is --data-dir (MAILSTEAD_DATA_DIR) right?`)
    const secretFile = sources.secret === 'default' ? secretBeside(target) : null
    for (const path of [target, secretFile]) if (path && taken(path)) throw refusedExisting(path)

    const summary = writing(target, () => snapshotDatabase(source, target))
    if (secretFile) {
      try {
        writing(secretFile, () => writeNewFile(secretFile, readFileSync(secretPath(config.dataDir))))
      } catch (error) {
        rmSync(target, { force: true })
        throw error
      }
    }
    const rows = Object.values(summary.tables).reduce((sum, n) => sum + n, 0)
    const result = { path: target, bytes: summary.bytes, tables: summary.tables, rows, migrations: summary.migrations, secret: { path: secretFile, from: sources.secret } }
    print(context, result, () => [
      `Backed up ${Object.keys(summary.tables).length} tables (${rows} rows, ${formatBytes(summary.bytes)}) to ${target}, checked intact`,
      secretFile
        ? `The secret is in ${secretFile} (mode 0600): keep both files together, DKIM keys and signing secrets open only with it`
        : `The secret comes from ${SECRET_ORIGIN[sources.secret]} and is not in the backup: keep it, DKIM keys and signing secrets open only with it`,
    ])
  },
}

/** Taken even by a dangling symbolic link: a backup never writes through one. */
function taken(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

const refusedExisting = (path: string) => new AppError(409, 'CONFLICT', `${path} already exists; a backup never replaces a file: give a new name`)

/** Runs a write of `path`, turning the system's refusals into messages that say what to change. */
function writing<T>(path: string, write: () => T): T {
  try {
    return write()
  } catch (error) {
    if (error instanceof FileExistsError) throw refusedExisting(error.path)
    if (error instanceof DatabaseFileError) throw new AppError(500, 'BACKUP_FAILED', `The copy failed its check, nothing was written: ${error.message}`)
    const code = (error as NodeJS.ErrnoException).code
    const reason = code && WRITE_ERRORS[code]
    if (reason) throw new AppError(400, 'CANNOT_WRITE', `Cannot write ${path}: ${reason}; nothing was written`)
    throw error
  }
}

const WRITE_ERRORS: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of its directory is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EISDIR: 'it is a directory',
  SQLITE_FULL: 'no space left on the device',
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}
