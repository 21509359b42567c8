import { migrationsFor } from '../../../migrations/index.ts'
import { databaseTarget } from '../../app.ts'
import { openDatabase } from '../../db/client.ts'
import { migrate } from '../../db/migrator.ts'
import type { Command } from '../command.ts'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations',
  async run(context) {
    const { config } = context.loadConfig()
    const database = await openDatabase(databaseTarget(config))
    try {
      const applied = await migrate(database.db, migrationsFor(database.dialect))
      context.io.out(applied.length > 0 ? `Applied ${applied.join(', ')}` : 'Database is up to date')
    } finally {
      await database.close()
    }
  },
}
