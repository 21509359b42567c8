/**
 * The database cannot be used as configured: the message names the setting to change and says
 * why, without the password.
 */
export class DatabaseError extends Error {
  override name = 'DatabaseError'
}

/** How the URL setting is named wherever a message points at it. */
export const DATABASE_URL_SETTING = 'MAILSTEAD_DATABASE_URL (--database-url)'

/** PostgreSQL failed the statement to break a deadlock (SQLSTATE 40P01); SQLite, one writer, has none. */
export const isDeadlock = (error: unknown) => (error as { code?: unknown })?.code === '40P01'
