import { sql, type Kysely } from 'kysely'
import { dialectOf } from './client.ts'
import { DATA_DIR_SETTING, DATABASE_URL_SETTING, DatabaseError } from './database-error.ts'
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
 * A database that holds a migration this list does not know was moved on by a newer Mailstead:
 * nothing is applied and a `DatabaseError` says so. Returns the names applied.
 *
 * Several processes may start at once: on SQLite the write lock, on PostgreSQL an advisory lock
 * held by each transaction, lets one apply a migration while the others wait, then find it done.
 */
export async function migrate(db: Db, migrations: readonly Migration[], now = Date.now): Promise<string[]> {
  const postgres = dialectOf(db) === 'postgres'
  await writeTransaction(db, async (trx) => {
    if (postgres) await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx)
    await sql`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at ${sql.raw(postgres ? 'BIGINT' : 'INTEGER')} NOT NULL)`.execute(trx)
  })
  await refuseNewer(db, migrations)
  const applied: string[] = []
  for (const migration of migrations) {
    const rebuilds = migration.rebuildsTables && !postgres
    // The pragma is a no-op inside a transaction, so it is set around it.
    if (rebuilds) await sql`PRAGMA foreign_keys = OFF`.execute(db)
    try {
      if (await applyOne(db, migration, now)) applied.push(migration.name)
    } finally {
      if (rebuilds) await sql`PRAGMA foreign_keys = ON`.execute(db)
    }
  }
  return applied
}

/** Any number: the key of the advisory lock that migrations on PostgreSQL hold. */
const MIGRATION_LOCK = 7_205_310_618

/** The migrations the database has and this list does not know: a newer Mailstead's. */
export async function unknownMigrations(db: Db, migrations: readonly Migration[]): Promise<string[]> {
  const known = new Set(migrations.map((m) => m.name))
  const rows = await db.selectFrom('migrations').select('name').orderBy('name').execute()
  return rows.map((row) => row.name).filter((name) => !known.has(name))
}

async function refuseNewer(db: Db, migrations: readonly Migration[]) {
  const unknown = await unknownMigrations(db, migrations)
  if (unknown.length === 0) return
  const setting = dialectOf(db) === 'postgres' ? DATABASE_URL_SETTING : DATA_DIR_SETTING
  throw new DatabaseError(
    `${setting}: the database was migrated by a newer Mailstead: migration ${unknown.at(-1)} is unknown to this one, whose last is ${migrations.at(-1)?.name}. ` +
      'Run that version or a newer one; nothing was changed.',
  )
}

async function applyOne(db: Db, migration: Migration, now: () => number): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    if (dialectOf(trx) === 'postgres') await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx)
    // Checked inside the lock: another process may have applied it meanwhile.
    const row = await trx.selectFrom('migrations').select('name').where('name', '=', migration.name).executeTakeFirst()
    if (row) return false
    try {
      await migration.up(trx)
      if (migration.rebuildsTables && dialectOf(trx) === 'sqlite') await checkForeignKeys(trx)
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
