import { PostgresAdapter, sql } from 'kysely'
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

/** The dialect a handle (or a transaction from it) talks to. */
export function dialectOf(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/**
 * How long PostgreSQL's change signal, once read, is trusted when no announcement says otherwise
 * (`forgetChangeVersion`): well within the 5 s a change may take to reach every process.
 */
const SIGNAL_READ_MS = 1000

const signalRead = new WeakMap<Db, { at: number; version: Promise<number> }>()

/**
 * Moves when another process (a server, the CLI) commits a change that caches of rarely-changed
 * rows (keys, projects, domains) must see: what they check before trusting themselves. SQLite's
 * `data_version` moves at any other connection's commit and costs nothing to read; PostgreSQL's
 * is a version that triggers move (migration 0019), read at most once a second per process.
 */
export function changeVersion(db: Db): Promise<number> {
  if (dialectOf(db) === 'sqlite') return sql<{ data_version: number }>`PRAGMA data_version`.execute(db).then((r) => r.rows[0]!.data_version)
  const now = Date.now()
  const last = signalRead.get(db)
  if (last && now - last.at < SIGNAL_READ_MS) return last.version
  const version = sql<{ version: number }>`SELECT version FROM change_signal WHERE id = 1`.execute(db).then((r) => r.rows[0]!.version)
  signalRead.set(db, { at: now, version })
  // A failed read is not remembered: the next caller asks again.
  version.catch(() => signalRead.delete(db))
  return version
}

/** A change was announced (a NOTIFY of the change signal): the next `changeVersion` reads it again. */
export function forgetChangeVersion(db: Db): void {
  signalRead.delete(db)
}
