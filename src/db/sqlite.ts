import { Database as BunDatabase } from 'bun:sqlite'
import { closeSync, existsSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, SqliteDialect } from 'kysely'
import { makePrivateDir, PRIVATE_FILE } from '../lib/files.ts'
import type { Database } from './client.ts'
import type { DB } from './schema.ts'

/**
 * Opens SQLite the way one writer with many readers wants it: busy_timeout before anything else
 * (so a second process waits instead of failing), then WAL, synchronous=NORMAL (durable at
 * checkpoints, a commit is one WAL append) and foreign keys.
 */
export function openSqlite(path: string): Database {
  if (path !== ':memory:') createPrivately(path)
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
    dialect: 'sqlite',
    close: async () => {
      raw.exec('PRAGMA optimize')
      await db.destroy()
    },
  }
}

/**
 * A new database file is made 0600 (its directory 0700) before SQLite opens it: SQLite gives the
 * WAL and shared-memory files the database file's permissions.
 */
function createPrivately(path: string) {
  makePrivateDir(dirname(path))
  if (existsSync(path)) return
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE))
  } catch (error) {
    // Another process made it meanwhile: it is theirs to have made privately.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}
