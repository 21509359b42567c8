import { sql, type Kysely } from 'kysely'
import type { Db } from './schema.ts'
import { writeTransaction } from './transaction.ts'

export interface Migration {
  name: string
  up(db: Kysely<any>): Promise<void>
}

export class MigrationError extends Error {
  override name = 'MigrationError'
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`Migration ${migration} failed and was rolled back: ${(cause as Error)?.message ?? cause}`, { cause })
  }
}

/**
 * Applies the migrations not yet in the history table, in list order, each in its own transaction
 * together with its history row: a failure leaves the database as it was before that migration.
 * Returns the names applied.
 */
export async function migrate(db: Db, migrations: readonly Migration[], now = Date.now): Promise<string[]> {
  await sql`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`.execute(db)
  const applied: string[] = []
  for (const migration of migrations) {
    const done = await writeTransaction(db, async (trx) => {
      // Checked inside the write lock: another process may have applied it meanwhile.
      const row = await trx.selectFrom('migrations').select('name').where('name', '=', migration.name).executeTakeFirst()
      if (row) return false
      try {
        await migration.up(trx)
      } catch (error) {
        throw new MigrationError(migration.name, error)
      }
      await trx.insertInto('migrations').values({ name: migration.name, applied_at: now() }).execute()
      return true
    })
    if (done) applied.push(migration.name)
  }
  return applied
}
