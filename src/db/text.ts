import { sql, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/** The domain part of an address column (what follows its first `@`): SQLite finds it with instr, PostgreSQL with strpos. */
export const domainPart = (db: Db, column: string): RawBuilder<string> => {
  const value = sql.ref(column)
  return sql<string>`substr(${value}, ${dialectOf(db) === 'postgres' ? sql`strpos(${value}, '@')` : sql`instr(${value}, '@')`} + 1)`
}

/**
 * Whether `error` is PostgreSQL refusing text it cannot hold: a NUL character (U+0000), in a text
 * value or in JSON. SQLite stores such text as it is; on PostgreSQL it is the caller's input that
 * cannot be kept, not a fault of the server.
 */
export function isUnstorableText(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  // 22021: "invalid byte sequence for encoding UTF8: 0x00"; 22P05: "unsupported Unicode escape sequence" (\u0000 in jsonb).
  return (code === '22021' && String(message).includes('0x00')) || code === '22P05'
}
