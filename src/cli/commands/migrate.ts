import { existsSync } from 'node:fs'
import { MIGRATIONS, migrationsFor } from '../../../migrations/index.ts'
import { databasePath, databaseTarget } from '../../settings-of.ts'
import type { Config } from '../../config/schema.ts'
import { databaseUse } from '../../db/backup.ts'
import { openDatabase, type Database } from '../../db/client.ts'
import { copySqliteToPostgres, holdsData } from '../../db/copy-to-postgres.ts'
import { migrate } from '../../db/migrator.ts'
import { openSqlite } from '../../db/sqlite.ts'
import { AppError } from '../../lib/errors.ts'
import type { Command, Context } from '../command.ts'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations; with --database-url, also copy the data directory\'s SQLite database into an empty PostgreSQL',
  async run(context) {
    const { config } = context.loadConfig()
    const database = await openDatabase(databaseTarget(config))
    try {
      const applied = await migrate(database.db, migrationsFor(database.dialect))
      context.io.out(applied.length > 0 ? `Applied ${applied.join(', ')}` : 'Database is up to date')
      if (database.dialect === 'postgres') await copyIntoPostgres(context, config, database)
    } finally {
      await database.close()
    }
  },
}

/**
 * For a team that outgrows one machine: the SQLite database of the data directory, if there is
 * one, is copied into PostgreSQL when PostgreSQL holds no data yet. A PostgreSQL that holds data
 * is never written to; a SQLite database a server still has open is not read (what it wrote after
 * the copy would be lost).
 */
async function copyIntoPostgres(context: Context, config: Config, target: Database) {
  const path = databasePath(config)
  if (!existsSync(path)) return
  if (await holdsData(target.db)) {
    context.io.out(`The SQLite database ${path} was not copied: PostgreSQL already holds data`)
    return
  }
  if (databaseUse(path) === 'open') {
    throw new AppError(409, 'IN_USE', `Not copied: ${path} is open in another process (a running server); stop it first, so that nothing it writes afterwards is lost`)
  }
  const source = openSqlite(path)
  try {
    await migrate(source.db, MIGRATIONS)
    const report = await copySqliteToPostgres(source, target, (table, rows) => context.io.progress?.(`copied ${table}: ${rows} rows`))
    context.io.progress?.('')
    const total = Object.values(report.tables).reduce((sum, rows) => sum + rows, 0)
    context.io.out(`Copied ${path} into PostgreSQL: ${total} rows in ${Object.keys(report.tables).length} tables`)
    context.io.out(`Keep the same secret on every process (${config.dataDir}/secret, or MAILSTEAD_SECRET): it seals the DKIM keys copied`)
  } finally {
    await source.close()
  }
}
