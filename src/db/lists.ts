import { sql, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/*
 * Lists passed to a statement as one JSON parameter, read back as a table: however long the list,
 * the statement has one parameter, so its text (and SQLite's cached plan) does not change with
 * the list's length. SQLite reads the JSON with json_each, PostgreSQL with its jsonb functions.
 */

/** The strings of `values` as a one-column subquery, for `column IN (...)`: `.where('id', 'in', textsIn(db, ids))`. */
export function textsIn(db: Db, values: readonly string[]): RawBuilder<string> {
  const json = JSON.stringify(values)
  return dialectOf(db) === 'postgres'
    ? sql<string>`(SELECT jsonb_array_elements_text(CAST(${json} AS jsonb)))`
    : sql<string>`(SELECT value FROM json_each(${json}))`
}

/** The SQL type a field of a record list is read as: JSON (an object, a list) stays JSON. */
export type FieldType = 'text' | 'bigint' | 'json'

export interface RecordTable<F extends string> {
  /** The table, with its alias, to follow FROM or JOIN. */
  table: RawBuilder<unknown>
  /** A field of the table's current record. */
  field(name: F): RawBuilder<unknown>
}

/**
 * `records` (objects with the fields `fields` names) as a table under `alias`, to join against:
 * `JOIN ${t.table} ON x.contact_id = ${t.field('contact')}`. A field missing from a record is NULL.
 */
export function recordTable<F extends string>(db: Db, alias: string, fields: Readonly<Record<F, FieldType>>, records: ReadonlyArray<Partial<Record<F, unknown>>>): RecordTable<F> {
  const json = JSON.stringify(records)
  if (dialectOf(db) === 'postgres') {
    const columns = Object.entries<FieldType>(fields).map(([name, type]) => sql`${sql.id(name)} ${sql.raw(type === 'json' ? 'jsonb' : type)}`)
    return {
      table: sql`jsonb_to_recordset(CAST(${json} AS jsonb)) AS ${sql.id(alias)}(${sql.join(columns)})`,
      field: (name) => sql.ref(`${alias}.${name}`),
    }
  }
  return {
    table: sql`json_each(${json}) AS ${sql.id(alias)}`,
    field: (name) => (fields[name] === 'json' ? sql`${sql.ref(`${alias}.value`)} -> ${'$.' + name}` : sql`${sql.ref(`${alias}.value`)} ->> ${'$.' + name}`),
  }
}

/** The integers of `values` as a one-column subquery, for `column IN (...)`, as `textsIn` does strings. */
export function integersIn(db: Db, values: readonly number[]): RawBuilder<number> {
  const json = JSON.stringify(values)
  return dialectOf(db) === 'postgres'
    ? sql<number>`(SELECT CAST(jsonb_array_elements_text(CAST(${json} AS jsonb)) AS bigint))`
    : sql<number>`(SELECT value FROM json_each(${json}))`
}
