import { Database as BunDatabase } from 'bun:sqlite'
import { copyFileSync, existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { fsyncPath, placeNew, tempBeside } from '../lib/files.ts'

/** What a database file holds, as checked. */
export interface DatabaseSummary {
  bytes: number
  /** Rows of each table, by name. */
  tables: Record<string, number>
  /** Names of the migrations it has had. */
  migrations: string[]
}

/** A database file that is not a usable Mailstead database; the message says why. */
export class DatabaseFileError extends Error {
  override name = 'DatabaseFileError'
}

/** The files SQLite keeps beside a database while it is open or after a crash. */
const SIDE_FILES = ['-wal', '-shm', '-journal']

/**
 * Copies the live database at `source` to `target`, which must not exist. VACUUM INTO reads one
 * snapshot (a read transaction: under WAL the server's writers go on meanwhile) and writes it
 * compacted, in rollback-journal mode, to a temporary name beside `target`; the copy is synced
 * and checked before it takes its name, so `target` is a whole, checked backup or absent.
 */
export function snapshotDatabase(source: string, target: string): DatabaseSummary {
  const temp = tempBeside(target)
  // Made empty first (VACUUM INTO accepts an empty file): an unwritable place fails here with the
  // system's reason, and the copy, which holds key hashes and sealed keys, is its owner's alone.
  writeFileSync(temp, '', { flag: 'wx', mode: 0o600 })
  let db: BunDatabase | undefined
  try {
    db = new BunDatabase(source, { readwrite: true, create: false })
    db.exec('PRAGMA busy_timeout = 5000')
    db.query('VACUUM INTO ?').run(temp)
    db.close()
    fsyncPath(temp)
    const summary = inspectDatabase(temp)
    placeNew(temp, target)
    return summary
  } finally {
    db?.close()
    for (const suffix of ['', ...SIDE_FILES]) rmSync(temp + suffix, { force: true })
  }
}

/**
 * Checks a database file the way a restore needs it: SQLite says every page is intact
 * (integrity_check), and it has Mailstead's migrations table. Answers its tables' row counts.
 */
export function inspectDatabase(path: string): DatabaseSummary {
  let db: BunDatabase
  try {
    db = new BunDatabase(path, { readonly: true })
  } catch (error) {
    throw new DatabaseFileError(`${path} cannot be opened as an SQLite database: ${(error as Error).message}`)
  }
  try {
    const problems = readOrExplain(path, () => db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all())
    if (problems.length !== 1 || problems[0]!.integrity_check !== 'ok') {
      const shown = problems.slice(0, 3).map((p) => p.integrity_check).join('; ')
      throw new DatabaseFileError(`${path} is damaged: SQLite's integrity check found ${problems.length} problems (${shown})`)
    }
    const names = db
      .query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((row) => row.name)
    if (!names.includes('migrations')) throw new DatabaseFileError(`${path} is not a Mailstead database: it has no migrations table`)
    const tables = Object.fromEntries(names.map((name) => [name, db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get()!.n]))
    const migrations = db.query<{ name: string }, []>('SELECT name FROM migrations ORDER BY name').all().map((row) => row.name)
    return { bytes: statSync(path).size, tables, migrations }
  } finally {
    db.close()
  }
}

function readOrExplain<T>(path: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    const { code, message } = error as { code?: string; message: string }
    if (code === 'SQLITE_CORRUPT') throw new DatabaseFileError(`${path} is damaged: ${message}`)
    throw new DatabaseFileError(`${path} cannot be read as an SQLite database: ${message}`)
  }
}

/** `open`: another connection has it; `unreadable`: the file is not a database, so it cannot be told. */
export type DatabaseUse = 'free' | 'open' | 'unreadable'

/**
 * Whether any connection (a running server, another mailstead command) has the database open.
 * Every WAL connection holds a shared lock on the database file for as long as it is open, and
 * the operating system drops it when the process ends, however it ends: a connection in
 * EXCLUSIVE locking mode that cannot begin an exclusive transaction at once is proof that
 * someone else has it open. No pid file can go stale this way. When nobody does, closing this
 * connection checkpoints what a crash left in the WAL into the file.
 */
export function databaseUse(path: string): DatabaseUse {
  if (!existsSync(path)) return 'free'
  const db = new BunDatabase(path, { readwrite: true, create: false })
  try {
    db.exec('PRAGMA busy_timeout = 0')
    db.exec('PRAGMA locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
    db.exec('ROLLBACK')
    return 'free'
  } catch (error) {
    const code = String((error as { code?: string }).code)
    if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'open'
    if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) return 'unreadable'
    throw error
  } finally {
    db.close()
  }
}

/**
 * Puts the database file `backup` in place of `path` (nobody may have it open: see
 * databaseUse). The backup is copied and synced beside it first; the stale WAL and shared
 * memory of the old file are removed, since SQLite would replay them onto the new one; the old
 * file is kept under `keepAs`, if given, and otherwise deleted.
 */
export function replaceDatabase(backup: string, path: string, keepAs?: string): void {
  const temp = tempBeside(path, 'restoring')
  try {
    copyFileSync(backup, temp)
    fsyncPath(temp)
    for (const suffix of SIDE_FILES) rmSync(path + suffix, { force: true })
    if (existsSync(path)) {
      if (keepAs) renameSync(path, keepAs)
      else rmSync(path)
    }
    renameSync(temp, path)
    fsyncPath(dirname(path), true)
  } finally {
    rmSync(temp, { force: true })
  }
}

/**
 * The first value found in a database file among `places` (a table's column; a table the file
 * lacks is passed over), read-only: which place held it, and the value.
 */
export function firstValue(path: string, places: ReadonlyArray<{ table: string; column: string }>): { index: number; value: string } | undefined {
  const db = new BunDatabase(path, { readonly: true })
  try {
    for (const [index, { table, column }] of places.entries()) {
      if (db.query('SELECT 1 FROM sqlite_schema WHERE type = ? AND name = ?').get('table', table) === null) continue
      const row = db.query<{ value: string }, []>(`SELECT ${column} AS value FROM ${table} LIMIT 1`).get()
      if (row) return { index, value: row.value }
    }
    return undefined
  } finally {
    db.close()
  }
}
