import { sql, type Expression, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/**
 * The rows of a group gathered into one JSON array of arrays, each holding `values` in order:
 * `[[a, b], [a, b], ...]`, and `[]` when the group has no rows. It reads as JSON text on both
 * dialects. SQLite's json_group_array gives `[]` for no rows; PostgreSQL's json_agg gives NULL,
 * hence the coalesce.
 */
export function jsonArrayOfRows(db: Db, values: ReadonlyArray<Expression<unknown>>): RawBuilder<string> {
  const items = sql.join(values)
  return dialectOf(db) === 'postgres'
    ? sql<string>`coalesce(json_agg(json_build_array(${items})), '[]')`
    : sql<string>`json_group_array(json_array(${items}))`
}
