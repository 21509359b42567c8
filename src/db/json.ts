import { sql, type RawBuilder } from 'kysely'

/**
 * `column` with `patch` merged in (RFC 7396: a null value removes the key). SQLite's json_patch;
 * a PostgreSQL dialect would put its own function here.
 */
export const jsonMergePatch = (column: string, patch: Record<string, unknown>): RawBuilder<string> =>
  sql<string>`json_patch(${sql.ref(column)}, ${JSON.stringify(patch)})`

/** `patch` applied to an empty object, so that nulls in a first write are dropped too. */
export const jsonFromPatch = (patch: Record<string, unknown>): RawBuilder<string> =>
  sql<string>`json_patch('{}', ${JSON.stringify(patch)})`
