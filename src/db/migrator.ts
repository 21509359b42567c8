import { sql, type Kysely } from 'kysely'
import type { Db } from './schema.ts'
import { writeTransaction } from './transaction.ts'

export interface Migration {
  name: string
  up(db: Kysely<any>): Promise<void>
  /**
   * Runs with foreign keys off (checked before the commit instead), as SQLite requires for
   * rebuilding a table that others refer to: dropping the old one would otherwise cascade.
   */
  rebuildsTables?: boolean
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
    // The pragma is a no-op inside a transaction, so it is set around it.
    if (migration.rebuildsTables) await sql`PRAGMA foreign_keys = OFF`.execute(db)
    try {
      if (await applyOne(db, migration, now)) applied.push(migration.name)
    } finally {
      if (migration.rebuildsTables) await sql`PRAGMA foreign_keys = ON`.execute(db)
    }
  }
  return applied
}

async function applyOne(db: Db, migration: Migration, now: () => number): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    // Checked inside the write lock: another process may have applied it meanwhile.
    const row = await trx.selectFrom('migrations').select('name').where('name', '=', migration.name).executeTakeFirst()
    if (row) return false
    try {
      await migration.up(trx)
      if (migration.rebuildsTables) await checkForeignKeys(trx)
    } catch (error) {
      throw new MigrationError(migration.name, error)
    }
    await trx.insertInto('migrations').values({ name: migration.name, applied_at: now() }).execute()
    return true
  })
}

async function checkForeignKeys(db: Db): Promise<void> {
  const broken = await sql<{ table: string; parent: string }>`PRAGMA foreign_key_check`.execute(db)
  if (broken.rows.length > 0) {
    const first = broken.rows[0]!
    throw new Error(`${broken.rows.length} rows would break foreign keys (first: ${first.table} -> ${first.parent})`)
  }
}
