import { sql, type RawBuilder } from 'kysely'
import { dialectOf } from './client.ts'
import type { DB, Db } from './schema.ts'

/*
 * Many rows in one statement: the rows travel as one JSON array parameter, unpacked by the
 * database (SQLite's json_each, PostgreSQL's jsonb_populate_recordset), so a chunk of thousands
 * costs one statement instead of thousands. Values are JSON's: strings, numbers and null
 * (booleans arrive as 1 and 0).
 */

/** A field of the row being inserted, in an insertMany `where`: `rowValue('contact_id')`. */
export const rowValue = (column: string): RawBuilder<unknown> => sql.ref(`incoming.${column}`)

export interface InsertManyOptions {
  /** Columns whose value is a JSON object or array, stored as binary JSON (on PostgreSQL the column's type says). */
  jsonb?: readonly string[]
  /** Only rows for which this holds are inserted; `rowValue` reads the row's fields. */
  where?: RawBuilder<unknown>
  /** What follows the rows: an ON CONFLICT clause, RETURNING. */
  then?: RawBuilder<unknown>
}

type Row<T extends keyof DB> = Partial<Record<keyof DB[T] & string, unknown>>

export async function insertMany<T extends keyof DB & string, R = unknown>(
  db: Db,
  table: T,
  columns: ReadonlyArray<keyof DB[T] & string>,
  rows: ReadonlyArray<Row<T>>,
  options: InsertManyOptions = {},
): Promise<R[]> {
  if (rows.length === 0) return []
  // A WHERE clause (`true` at least) keeps SQLite from reading an ON CONFLICT clause as part of the SELECT.
  const result = await sql<R>`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    SELECT ${sql.join(columns.map((c) => sql.ref(`incoming.${c}`)))} FROM ${incoming(db, table, columns, rows, options.jsonb)}
    WHERE ${options.where ?? sql`true`} ${options.then ?? sql``}`.execute(db)
  return result.rows
}

/**
 * Updates many rows with one statement, each to its own values: the rows travel as in insertMany
 * and are matched to the table's rows by the `key` columns.
 */
export async function updateMany<T extends keyof DB & string>(
  db: Db,
  table: T,
  key: ReadonlyArray<keyof DB[T] & string>,
  set: ReadonlyArray<keyof DB[T] & string>,
  rows: ReadonlyArray<Row<T>>,
): Promise<void> {
  if (rows.length === 0) return
  const assignments = set.map((column) => sql`${sql.ref(column)} = ${sql.ref(`incoming.${column}`)}`)
  const matches = key.map((column) => sql`${sql.ref(`${table}.${column}`)} = ${sql.ref(`incoming.${column}`)}`)
  await sql`UPDATE ${sql.table(table)} SET ${sql.join(assignments)}
    FROM ${incoming(db, table, [...key, ...set], rows)} WHERE ${sql.join(matches, sql` AND `)}`.execute(db)
}

/**
 * The rows as a table named `incoming` with the given columns. On SQLite a subquery over
 * json_each, which SQLite flattens into the statement around it. On PostgreSQL the table's own
 * row type types each field, so a number lands in a bigint column and an object in a jsonb one.
 */
function incoming<T extends keyof DB & string>(
  db: Db,
  table: T,
  columns: readonly string[],
  rows: ReadonlyArray<Row<T>>,
  jsonb: readonly string[] = [],
): RawBuilder<unknown> {
  if (dialectOf(db) === 'postgres') {
    const fields = rows.map((row) => asSqliteReadsThem(row, jsonb))
    return sql`jsonb_populate_recordset(CAST(NULL AS ${sql.table(table)}), CAST(${JSON.stringify(fields)} AS jsonb)) AS incoming`
  }
  const fields = columns.map((column) =>
    jsonb.includes(column)
      ? sql`jsonb(value -> ${'$.' + column}) AS ${sql.ref(column)}`
      : sql`value ->> ${'$.' + column} AS ${sql.ref(column)}`,
  )
  return sql`(SELECT ${sql.join(fields)} FROM json_each(${JSON.stringify(rows)})) AS incoming`
}

/**
 * A row's fields as SQLite's `->>` reads them: true and false are 1 and 0, an object or array is
 * its JSON text, but in `jsonb` columns, which keep it as JSON. Inside JSON values nothing changes.
 */
function asSqliteReadsThem(row: object, jsonb: readonly string[]): object {
  const field = (name: string, value: unknown) =>
    typeof value === 'boolean' ? Number(value) : value !== null && typeof value === 'object' && !jsonb.includes(name) ? JSON.stringify(value) : value
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, field(name, value)]))
}
