import { sql, type Expression, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/*
 * Contact data is stored as binary JSON (SQLite's JSONB, PostgreSQL's jsonb) and read back as
 * JSON text. These are the JSON functions in one place. They read the same on both dialects:
 * PostgreSQL gets SQLite's `jsonb_patch` from migration 0020, and `json(x)` is a cast to json
 * there, whose text the driver hands back as it is.
 */

/**
 * `column` with the JSON object `patch` merged in (RFC 7396: a null value removes the key), or
 * `column` unchanged when `patch` is NULL. `patch` is JSON text (a parameter) or a binary JSON expression.
 */
export const jsonMergePatch = (column: string, patch: unknown): RawBuilder<Uint8Array> =>
  // jsonb_patch is NULL when the patch is (on both): one mention of the patch, whose type PostgreSQL infers.
  sql<Uint8Array>`coalesce(jsonb_patch(${sql.ref(column)}, ${patch}), ${sql.ref(column)})`

/** `patch` applied to an empty object, so that nulls in a first write are dropped too. */
export const jsonFromPatch = (patch: unknown): RawBuilder<Uint8Array> => sql<Uint8Array>`jsonb_patch('{}', ${patch})`

/** A stored JSON column as JSON text. */
export const jsonText = (column: string): RawBuilder<string> => sql<string>`json(${sql.ref(column)})`

/** The JSON object `column` (stored as JSON or as its text) as a table of its entries (`key`, `value`), for a FROM clause. */
export const jsonEntries = (db: Db, column: string | Expression<unknown>): RawBuilder<unknown> => {
  const value = typeof column === 'string' ? sql.ref(column) : column
  return dialectOf(db) === 'postgres' ? sql`jsonb_each(CAST(${value} AS jsonb))` : sql`json_each(${value})`
}
