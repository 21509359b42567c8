import { sql, type Expression, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/**
 * The size in bytes of a text or blob value (NULL for NULL): what it takes up, UTF-8 bytes rather
 * than characters. SQLite's length() counts characters of text, hence the cast to a blob there;
 * PostgreSQL's octet_length takes either.
 */
export const byteLength = (db: Db, value: Expression<unknown>): RawBuilder<number> =>
  dialectOf(db) === 'postgres' ? sql<number>`octet_length(${value})` : sql<number>`length(CAST(${value} AS BLOB))`
