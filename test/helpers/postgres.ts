import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { POSTGRES_MIGRATIONS } from '../../migrations/index.ts'
import type { Database } from '../../src/db/client.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { openPostgres } from '../../src/db/postgres.ts'
import { migrate } from '../../src/db/migrator.ts'
import { migrationsHash } from './migration-hash.ts'
import { openSeededSqlite, seedMigratedSqlite } from './sqlite-template.ts'

/**
 * A server where tests may create databases: `MAILSTEAD_TEST_POSTGRES_URL`, else the local one
 * that `.ci/run` makes sure of (trust auth, a superuser named `root`).
 */
export const POSTGRES_ADMIN_URL = process.env.MAILSTEAD_TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres'

/** Whether the suite runs on PostgreSQL: `MAILSTEAD_TEST_DATABASE=postgres`. */
export const onPostgres = process.env.MAILSTEAD_TEST_DATABASE === 'postgres'

/** A URL for `database` on the admin URL's server. */
export function urlOf(database: string): string {
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${database}`
  return url.toString()
}

/** Runs statements on the admin database, one connection, closed after. */
export async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

let template: Promise<string> | undefined

/**
 * A template database with every migration applied, made once per version of the migration list
 * (its name carries their hash) and shared by every test process since.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `mailstead_template_${migrationsHash(POSTGRES_MIGRATIONS)}`
    await admin(async (client) => {
      // One test process makes it; the others wait for it here.
      await client.query('SELECT pg_advisory_lock(7205310619)')
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
        if (found.rowCount === 0) {
          // Templates of other migration lists are kept: another checkout's tests may be using them.
          await client.query(`CREATE DATABASE ${name}`)
          const database = await openPostgres(urlOf(name))
          try {
            await migrate(database.db, POSTGRES_MIGRATIONS)
          } finally {
            await database.close()
          }
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock(7205310619)')
      }
    })
    return name
  })()
  return template
}

export interface TestDatabase {
  name: string
  url: string
  drop(): Promise<void>
}

/** A fresh database: migrated (a copy of the template) unless `empty`. */
export async function freshPostgres(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `mailstead_test_${randomBytes(6).toString('hex')}`
  const from = options.empty ? '' : ` TEMPLATE ${await migratedTemplate()}`
  await admin((client) => client.query(`CREATE DATABASE ${name}${from}`))
  return {
    name,
    url: urlOf(name),
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  }
}

/**
 * A fresh, migrated database for tests that work below the app (repositories, the segment
 * compiler): SQLite (a copy of the migrated template), or a new PostgreSQL database when the suite runs there. `close`
 * closes it and, on PostgreSQL, drops it.
 */
export async function openTestDatabase(): Promise<Database> {
  if (!onPostgres) return openSeededSqlite()
  const made = await freshPostgres()
  const database = await openPostgres(made.url)
  return {
    ...database,
    async close() {
      await database.close()
      await made.drop()
    },
  }
}

/**
 * Two connections to one fresh, migrated database, as two processes would have: a SQLite file
 * in a temporary directory, or a new PostgreSQL database. `close` closes both (and drops it).
 */
export async function twoConnections(): Promise<{ first: Database; second: Database; close(): Promise<void> }> {
  const made = onPostgres ? await freshPostgres() : undefined
  let first: Database
  let second: Database
  if (made) {
    first = await openPostgres(made.url)
    second = await openPostgres(made.url)
  } else {
    const path = join(mkdtempSync(join(tmpdir(), 'mailstead-two-')), 'db.sqlite')
    await seedMigratedSqlite(path)
    first = openSqlite(path)
    second = openSqlite(path)
  }
  return {
    first,
    second,
    async close() {
      await second.close()
      await first.close()
      await made?.drop()
    },
  }
}
