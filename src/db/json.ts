import { sql, type RawBuilder } from 'kysely'

/**
 * `column` with the JSON object `patchJson` merged in (RFC 7396: a null value removes the key), or
 * `column` unchanged when `patchJson` is NULL. SQLite's json_patch; a PostgreSQL dialect would
 * put its own function here.
 */
export const jsonMergePatch = (column: string, patchJson: unknown): RawBuilder<string> =>
  sql<string>`CASE WHEN ${patchJson} IS NULL THEN ${sql.ref(column)} ELSE json_patch(${sql.ref(column)}, ${patchJson}) END`

/** `patchJson` applied to an empty object, so that nulls in a first write are dropped too. */
export const jsonFromPatch = (patchJson: unknown): RawBuilder<string> => sql<string>`json_patch('{}', ${patchJson})`
