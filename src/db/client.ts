import { PostgresAdapter, sql } from 'kysely'
import { DATABASE_URL_SETTING, DatabaseError } from './errors.ts'
import { openPostgres } from './postgres.ts'
import type { Db } from './schema.ts'
import { openSqlite } from './sqlite.ts'

/** The two databases Mailstead keeps its data in. */
export type Dialect = 'sqlite' | 'postgres'

export interface Database {
  db: Db
  dialect: Dialect
  close(): Promise<void>
}

/** Where the data is: SQLite's file (or `:memory:`), or a PostgreSQL URL. */
export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string }

/**
 * Opens the database a target names. PostgreSQL is connected to before this answers, so a URL
 * that does not work is said at once, naming the setting (`DatabaseError`).
 */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.dialect === 'sqlite' ? openSqlite(target.path) : openPostgres(target.url)
}

/**
 * Serving from PostgreSQL is being built: its schema and migrations are in, the queries of the
 * rest of the code are not all written for it yet. Until they are (the whole suite passing on
 * it), the commands a user runs, but `mailstead migrate`, refuse it rather than half work. The
 * app itself opens it, so that the tests can run on it meanwhile.
 */
export function refuseUnfinishedDialect(target: DatabaseTarget): void {
  if (target.dialect === 'postgres') {
    throw new DatabaseError(
      `${DATABASE_URL_SETTING}: this version of Mailstead can migrate a PostgreSQL database but not yet serve or manage one from it; unset it to use SQLite in the data directory`,
    )
  }
}

/** The dialect a handle (or a transaction from it) talks to. */
export function dialectOf(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/**
 * Changes whenever another connection (another process, such as the CLI) commits to the database:
 * what caches of rarely-changed rows check before trusting themselves.
 */
export async function dataVersion(db: Db): Promise<number> {
  const result = await sql<{ data_version: number }>`PRAGMA data_version`.execute(db)
  return result.rows[0]!.data_version
}
