import { sql, type RawBuilder } from 'kysely'

/*
 * Contact data is stored as SQLite's binary JSON (JSONB) and read back as JSON text. These are the
 * dialect's JSON functions in one place; a PostgreSQL dialect would use its jsonb operators here.
 */

/**
 * `column` with the JSON object `patchJson` merged in (RFC 7396: a null value removes the key), or
 * `column` unchanged when `patchJson` is NULL.
 */
export const jsonMergePatch = (column: string, patchJson: unknown): RawBuilder<Uint8Array> =>
  sql<Uint8Array>`CASE WHEN ${patchJson} IS NULL THEN ${sql.ref(column)} ELSE jsonb_patch(${sql.ref(column)}, ${patchJson}) END`

/** `patchJson` applied to an empty object, so that nulls in a first write are dropped too. */
export const jsonFromPatch = (patchJson: unknown): RawBuilder<Uint8Array> => sql<Uint8Array>`jsonb_patch('{}', ${patchJson})`

/** A stored JSON column as JSON text. */
export const jsonText = (column: string): RawBuilder<string> => sql<string>`json(${sql.ref(column)})`
