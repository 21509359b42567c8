import { Database as BunDatabase } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, SqliteDialect, sql } from 'kysely'
import type { DB, Db } from './schema.ts'

export interface Database {
  db: Db
  close(): Promise<void>
}

/**
 * Opens SQLite the way one writer with many readers wants it: busy_timeout before anything else
 * (so a second process waits instead of failing), then WAL, synchronous=NORMAL (durable at
 * checkpoints, a commit is one WAL append) and foreign keys.
 */
export function openDatabase(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const raw = new BunDatabase(path, { create: true })
  raw.exec('PRAGMA busy_timeout = 5000')
  raw.exec('PRAGMA journal_mode = WAL')
  raw.exec('PRAGMA synchronous = NORMAL')
  raw.exec('PRAGMA foreign_keys = ON')
  raw.exec('PRAGMA temp_store = MEMORY')
  raw.exec('PRAGMA cache_size = -32000')
  // Kysely prepares every query it runs; `query` keeps prepared statements by their SQL text.
  const database = { prepare: (text: string) => raw.query(text), close: () => raw.close() }
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: database as never }) })
  return {
    db,
    close: async () => {
      raw.exec('PRAGMA optimize')
      await db.destroy()
    },
  }
}

/**
 * Changes whenever another connection (another process, such as the CLI) commits to the database:
 * what caches of rarely-changed rows check before trusting themselves.
 */
export async function dataVersion(db: Db): Promise<number> {
  const result = await sql<{ data_version: number }>`PRAGMA data_version`.execute(db)
  return result.rows[0]!.data_version
}
