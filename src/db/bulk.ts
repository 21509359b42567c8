import { sql, type RawBuilder } from 'kysely'
import type { DB, Db } from './schema.ts'

/** A field of the row being inserted, in an insertMany `where`: `rowValue('contact_id')`. */
export const rowValue = (column: string): RawBuilder<unknown> => sql`value ->> ${'$.' + column}`

export interface InsertManyOptions {
  /** Columns whose value is a JSON object or array, stored as JSONB. */
  jsonb?: readonly string[]
  /** Only rows for which this holds are inserted; `rowValue` reads the row's fields. */
  where?: RawBuilder<unknown>
  /** What follows the rows: an ON CONFLICT clause, RETURNING. */
  then?: RawBuilder<unknown>
}

/**
 * Inserts many rows with one statement: the rows travel as one JSON array parameter, unpacked by
 * SQLite's json_each, so a chunk of thousands costs one statement instead of thousands. Values
 * are JSON's: strings, numbers and null (booleans arrive as 1 and 0). Dialect-specific, as the
 * rest of this folder; PostgreSQL would use jsonb_to_recordset.
 */
export async function insertMany<T extends keyof DB & string, R = unknown>(
  db: Db,
  table: T,
  columns: ReadonlyArray<keyof DB[T] & string>,
  rows: ReadonlyArray<Partial<Record<keyof DB[T] & string, unknown>>>,
  options: InsertManyOptions = {},
): Promise<R[]> {
  if (rows.length === 0) return []
  const values = columns.map((column) =>
    options.jsonb?.includes(column) ? sql`jsonb(value -> ${'$.' + column})` : sql`value ->> ${'$.' + column}`,
  )
  // A WHERE clause (`true` at least) keeps SQLite from reading an ON CONFLICT clause as part of the SELECT.
  const result = await sql<R>`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    SELECT ${sql.join(values)} FROM json_each(${JSON.stringify(rows)}) WHERE ${options.where ?? sql`true`} ${options.then ?? sql``}`.execute(db)
  return result.rows
}

/**
 * Updates many rows with one statement, each to its own values: the rows travel as one JSON array
 * (as in insertMany) and are matched to the table's rows by the `key` columns.
 */
export async function updateMany<T extends keyof DB & string>(
  db: Db,
  table: T,
  key: ReadonlyArray<keyof DB[T] & string>,
  set: ReadonlyArray<keyof DB[T] & string>,
  rows: ReadonlyArray<Partial<Record<keyof DB[T] & string, unknown>>>,
): Promise<void> {
  if (rows.length === 0) return
  const field = (column: string) => sql`j.value ->> ${'$.' + column}`
  const assignments = set.map((column) => sql`${sql.ref(column)} = ${field(column)}`)
  const matches = key.map((column) => sql`${sql.ref(`${table}.${column}`)} = ${field(column)}`)
  await sql`UPDATE ${sql.table(table)} SET ${sql.join(assignments)}
    FROM json_each(${JSON.stringify(rows)}) AS j WHERE ${sql.join(matches, sql` AND `)}`.execute(db)
}
