/**
 * The database cannot be used as configured: the message names the setting to change and says
 * why, without the password.
 */
export class DatabaseError extends Error {
  override name = 'DatabaseError'
}

/** How the URL setting is named wherever a message points at it. */
export const DATABASE_URL_SETTING = 'MAILSTEAD_DATABASE_URL (--database-url)'

/** The setting that says where SQLite's database is, named likewise. */
export const DATA_DIR_SETTING = 'MAILSTEAD_DATA_DIR (--data-dir)'

/** PostgreSQL failed the statement to break a deadlock (SQLSTATE 40P01); SQLite, one writer, has none. */
export const isDeadlock = (error: unknown) => (error as { code?: unknown })?.code === '40P01'

/**
 * The database did not answer: the connection was lost or refused (PostgreSQL restarting, or the
 * network to it), or SQLite's file stayed locked. What failed for that alone may be tried again.
 */
export function isUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  // SQLSTATE class 08 is PostgreSQL's connection exceptions.
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true
  return typeof message === 'string' && CONNECTION_LOST.test(message)
}

/** The network's refusals and resets, PostgreSQL shutting down or starting, SQLite's lock. */
const UNAVAILABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', 'SQLITE_BUSY'])
/** What pg says of a connection it lost or could not make, without a code. */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/
