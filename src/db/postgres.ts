import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './client.ts'
import { DATABASE_URL_SETTING, DatabaseError } from './database-error.ts'
import type { DB } from './schema.ts'

/** The oldest PostgreSQL Mailstead runs on (its MERGE, its JSON functions). */
const MIN_SERVER_VERSION = 150000

/** How long a connection may take before the URL is said not to work. */
const CONNECT_TIMEOUT_MS = 10_000

const OID = { int8: 20, numeric: 1700, json: 114, jsonb: 3802 } as const

/**
 * Values as the rest of the code reads them on either dialect: int8 (epoch milliseconds, ids,
 * counts) and numeric (sums) as numbers, JSON as its text, which the code parses itself.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === OID.int8 || oid === OID.numeric) return (text: string) => Number(text)
    if (oid === OID.json || oid === OID.jsonb) return (text: string) => text
    return pg.types.getTypeParser(oid, format as 'text')
  },
}

/**
 * Connects to PostgreSQL through a pool (`pg`, Kysely's own dialect) and checks, before answering,
 * that the URL works and the server is new enough: a failure is a `DatabaseError` naming the
 * setting and the cause (unreachable, credentials, no such database), never the password.
 */
export async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, types, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: 10 })
  // An idle connection that the server closes (a restart) is reported here; without a listener it
  // would end the process. The pool replaces it at the next query.
  pool.on('error', () => {})
  // A connection lost while a query holds it fails that query, and pg emits the error on the
  // client too; pg-pool listens to a client only while it is idle, and an unheard error event
  // would end the process.
  pool.on('connect', (client) => client.on('error', () => {}))
  try {
    const { rows } = await pool.query<{ version: number }>(`SELECT current_setting('server_version_num')::int AS version`)
    if (rows[0]!.version < MIN_SERVER_VERSION) {
      throw new DatabaseError(`${DATABASE_URL_SETTING}: ${describe(url)} runs PostgreSQL ${formatVersion(rows[0]!.version)}; Mailstead needs 15 or newer`)
    }
  } catch (error) {
    await pool.end().catch(() => {})
    throw error instanceof DatabaseError ? error : connectionError(url, error)
  }
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
  return { db, dialect: 'postgres', close: () => db.destroy() }
}

/** What went wrong connecting, in words that say what to change. */
export function connectionError(url: string, error: unknown): DatabaseError {
  const { code, message } = error as { code?: string; message?: string }
  const where = describe(url)
  const { username, database } = partsOf(url)
  const why =
    code === '28P01' || code === '28000'
      ? `the server refused the credentials of user "${username}" (${message})`
      : code === '3D000'
        ? `the database "${database}" does not exist; create it first (createdb ${database})`
        : code === 'ECONNREFUSED'
          ? 'the connection was refused: is PostgreSQL running and listening there?'
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? 'its host name does not resolve'
            : /timeout/i.test(message ?? '')
              ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`
              : (message ?? String(error))
  return new DatabaseError(`${DATABASE_URL_SETTING}: cannot use ${where}: ${why}`, { cause: error })
}

/** The URL as it may be shown: user, host, port and database, never the password. */
export function describe(url: string): string {
  const { username, host, port, database } = partsOf(url)
  return `postgres://${username ? `${username}@` : ''}${host}:${port}/${database}`
}

function partsOf(url: string) {
  const parsed = new URL(url)
  return {
    username: decodeURIComponent(parsed.username) || process.env.PGUSER || process.env.USER || '',
    host: parsed.hostname,
    port: parsed.port || '5432',
    database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || process.env.PGDATABASE || '',
  }
}

const formatVersion = (num: number) => `${Math.floor(num / 10000)}.${num % 10000}`
