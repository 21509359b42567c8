import { Database as BunDatabase } from 'bun:sqlite'
import { join } from 'node:path'
import { sql } from 'kysely'
import { openDatabase, type Database } from '../../src/db/client.ts'

/**
 * Where a server run by a test keeps its data: SQLite's file in its data directory, or, when the
 * suite runs on PostgreSQL, the database at `databaseUrl`.
 */
export interface DataPlace {
  dir: string
  databaseUrl: string | undefined
}

/** The server's database, opened beside it (while it runs or after), on either dialect; close it after. */
export function openDirect(place: DataPlace): Promise<Database> {
  return openDatabase(place.databaseUrl ? { dialect: 'postgres', url: place.databaseUrl } : { dialect: 'sqlite', path: join(place.dir, 'mailstead.db') })
}

/**
 * The rows of one query (plain SQL that both dialects read alike) on the server's database. On
 * SQLite the file is opened read-only, so that reading changes nothing a test checks of the file;
 * counts come back as numbers on both.
 */
export async function readRows<T>(place: DataPlace, query: string): Promise<T[]> {
  if (!place.databaseUrl) {
    const db = new BunDatabase(join(place.dir, 'mailstead.db'), { readonly: true })
    try {
      return db.query(query).all() as T[]
    } finally {
      db.close()
    }
  }
  const database = await openDirect(place)
  try {
    return (await sql.raw<T>(query).execute(database.db)).rows
  } finally {
    await database.close()
  }
}
