import { existsSync } from 'node:fs'
import { MIGRATIONS, migrationsFor } from '../../../migrations/index.ts'
import { databasePath, databaseTarget } from '../../settings-of.ts'
import type { Config } from '../../config/config-schema.ts'
import { databaseUse } from '../../db/backup.ts'
import { openDatabase, type Database } from '../../db/client.ts'
import { copySqliteToPostgres, holdsData } from '../../db/copy-to-postgres.ts'
import { migrate } from '../../db/migrator.ts'
import { openSqlite } from '../../db/sqlite.ts'
import { AppError } from '../../lib/errors.ts'
import { JSON_FLAG, print, type Command, type Context } from '../command.ts'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations; with --database-url, also copy the data directory\'s SQLite database into an empty PostgreSQL',
  flags: JSON_FLAG,
  async run(context) {
    const { config } = context.loadConfig()
    const database = await openDatabase(databaseTarget(config))
    try {
      const applied = await migrate(database.db, migrationsFor(database.dialect))
      const copy = database.dialect === 'postgres' ? await copyIntoPostgres(context, config, database) : null
      print(context, { dialect: database.dialect, applied, copy }, () => [
        applied.length > 0 ? `Applied ${applied.join(', ')}` : 'Database is up to date',
        ...(copy ? copyLines(copy, config) : []),
      ])
    } finally {
      await database.close()
    }
  },
}

/** What became of the data directory's SQLite database on a migrate into PostgreSQL. */
type CopyResult = { from: string; copied: false; reason: string } | { from: string; copied: true; rows: number; tables: Record<string, number> }

const copyLines = (copy: CopyResult, config: Config) =>
  copy.copied
    ? [
        `Copied ${copy.from} into PostgreSQL: ${copy.rows} rows in ${Object.keys(copy.tables).length} tables`,
        `Keep the same secret on every process (${config.dataDir}/secret, or MAILSTEAD_SECRET): it seals the DKIM keys copied`,
      ]
    : [`The SQLite database ${copy.from} was not copied: ${copy.reason}`]

/**
 * For a team that outgrows one machine: the SQLite database of the data directory, if there is
 * one, is copied into PostgreSQL when PostgreSQL holds no data yet. A PostgreSQL that holds data
 * is never written to; a SQLite database a server still has open is not read (what it wrote after
 * the copy would be lost).
 */
async function copyIntoPostgres(context: Context, config: Config, target: Database): Promise<CopyResult | null> {
  const path = databasePath(config)
  if (!existsSync(path)) return null
  if (await holdsData(target.db)) return { from: path, copied: false, reason: 'PostgreSQL already holds data' }
  if (databaseUse(path) === 'open') {
    throw new AppError(409, 'IN_USE', `Not copied: ${path} is open in another process (a running server); stop it first, so that nothing it writes afterwards is lost`)
  }
  const source = openSqlite(path)
  try {
    await migrate(source.db, MIGRATIONS)
    const report = await copySqliteToPostgres(source, target, (table, rows) => context.io.progress?.(`copied ${table}: ${rows} rows`))
    context.io.progress?.('')
    const rows = Object.values(report.tables).reduce((sum, n) => sum + n, 0)
    return { from: path, copied: true, rows, tables: report.tables }
  } finally {
    await source.close()
  }
}
