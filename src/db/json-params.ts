import { sql, type RawBuilder } from 'kysely'
import type { Dialect } from './client.ts'

/*
 * Many values as one JSON parameter, unpacked by the database: however many there are, the
 * statement is the same (SQLite's json_each, PostgreSQL's jsonb_array_elements).
 */

/** A list of strings as a subquery, for `IN`. */
export function valueList(dialect: Dialect, values: readonly string[]): RawBuilder<string> {
  if (dialect === 'sqlite') return sql<string>`(SELECT value FROM json_each(${JSON.stringify(values)}))`
  return sql<string>`(SELECT jsonb_array_elements_text(CAST(${JSON.stringify(values)} AS jsonb)))`
}

/** Rows as a FROM item named `alias`: read their fields with `rowField`. */
export function jsonRows(dialect: Dialect, rows: readonly object[], alias: string): RawBuilder<unknown> {
  if (dialect === 'sqlite') return sql`json_each(${JSON.stringify(rows)}) AS ${sql.id(alias)}`
  return sql`jsonb_array_elements(CAST(${JSON.stringify(rows)} AS jsonb)) AS ${sql.id(alias)}(value)`
}

/**
 * A field of a row of `jsonRows`: as text, as an integer (booleans must travel as 1 and 0), or as
 * JSON (an object, a list). A field that is absent or null is NULL.
 */
export function rowField(dialect: Dialect, alias: string, name: string, type: 'text' | 'integer' | 'json'): RawBuilder<unknown> {
  const value = sql`${sql.id(alias)}.value`
  if (dialect === 'sqlite') return type === 'json' ? sql`${value} -> ${sql.lit('$.' + name)}` : sql`${value} ->> ${sql.lit('$.' + name)}`
  if (type === 'json') return sql`(${value} -> ${sql.lit(name)})`
  return type === 'integer' ? sql`CAST(${value} ->> ${sql.lit(name)} AS bigint)` : sql`(${value} ->> ${sql.lit(name)})`
}

/** A JSON object or list as the value of a JSON column (SQLite's binary JSONB, PostgreSQL's jsonb). */
export function jsonDocument(dialect: Dialect, value: unknown): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql`jsonb(${JSON.stringify(value)})` : sql`CAST(${JSON.stringify(value)} AS jsonb)`
}
