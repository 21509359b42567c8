import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { equalsIgnoringCase, likeIgnoringCase } from './caseless.ts'
import type { Dialect } from './client.ts'
import { jsonDateSeconds } from './json-dates.ts'

/*
 * Tests on a value inside a JSON column (contacts.data: SQLite's JSONB, PostgreSQL's jsonb), one
 * function per test, each written for both dialects with the same meaning: types are kept (a
 * number never equals a string, a boolean is not 1), a missing key or JSON null makes a test
 * unknown (NULL), text compares ignoring ASCII case. Keys and values travel as parameters.
 *
 * SQLite's `->>` gives a JSON string as text, a number as a number, true and false as 1 and 0;
 * it sorts NULL < numbers < text. Its SQL leans on that to extract a key once a row. PostgreSQL's
 * leans on jsonb_typeof and jsonb's own equality, which compares numbers as numbers.
 */

/** The value at `keys` (nested: `['address', 'city']`) in the JSON column `column`. */
export interface JsonField {
  column: string
  keys: readonly string[]
}

export type Predicate = RawBuilder<SqlBool>

/** SQLite's JSON path to nested keys: plain names as they are (parsed faster), others quoted. */
export const jsonPath = (keys: readonly string[]) => '$' + keys.map((key) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `."${key}"`)).join('')

/** PostgreSQL: the value as jsonb. `->` with a text key reads an object's key only, never an array's index. */
const pgValue = (field: JsonField) => field.keys.reduce<RawBuilder<unknown>>((json, key) => sql`${json} -> ${key}`, sql.ref(field.column))

/** PostgreSQL: the value as text (a string unquoted, other types as their JSON). */
const pgText = (field: JsonField) => sql`(${pgValue({ ...field, keys: field.keys.slice(0, -1) })} ->> ${field.keys.at(-1)!})`

const pgType = (field: JsonField) => sql`jsonb_typeof(${pgValue(field)})`

/** SQLite: the value as SQL (`->>`), its JSON (`->`), its type (`json_type`). */
const sqliteText = (field: JsonField) => sql`(${sql.ref(field.column)} ->> ${jsonPath(field.keys)})`
const sqliteJson = (field: JsonField) => sql`(${sql.ref(field.column)} -> ${jsonPath(field.keys)})`
const sqliteType = (field: JsonField) => sql`json_type(${sql.ref(field.column)}, ${jsonPath(field.keys)})`

/** The key is there with a value other than JSON null (`present`), or it is not. Never NULL. */
export function jsonPresent(dialect: Dialect, field: JsonField, present: boolean): Predicate {
  const type = dialect === 'sqlite' ? sqliteType(field) : pgType(field)
  return sql`coalesce(${type}, 'null') ${sql.raw(present ? '<>' : '=')} 'null'`
}

/** A JSON string equal to `value`, ignoring ASCII case. */
export function jsonEqualsText(dialect: Dialect, field: JsonField, value: string): Predicate {
  if (dialect === 'postgres') return sql`(${pgType(field)} = 'string' AND ${equalsIgnoringCase(dialect, pgText(field), value)})`
  // Arrays and objects are extracted as their JSON text, which only a string that looks like JSON
  // could equal: only then is the type looked at.
  const text = equalsIgnoringCase(dialect, sqliteText(field), value)
  return /^\s*[[{]/.test(value) ? sql`(${text} AND ${sqliteType(field)} = 'text')` : text
}

/** A JSON number equal to `value`. */
export function jsonEqualsNumber(dialect: Dialect, field: JsonField, value: number): Predicate {
  if (dialect === 'postgres') return sql`${pgValue(field)} = CAST(${JSON.stringify(value)} AS jsonb)`
  const equal: Predicate = sql`${sqliteText(field)} = ${value}`
  return value === 0 || value === 1 ? sql`(${equal} AND ${sqliteNotBoolean(field)})` : equal
}

/** JSON true or false. */
export function jsonEqualsBoolean(dialect: Dialect, field: JsonField, value: boolean): Predicate {
  if (dialect === 'postgres') return sql`${pgValue(field)} = CAST(${String(value)} AS jsonb)`
  return sql`${sqliteJson(field)} = ${value ? 'true' : 'false'}`
}

/** SQLite's `->>` reads JSON true and false as 1 and 0; `->` gives them back as JSON text. */
const sqliteNotBoolean = (field: JsonField) => sql`${sqliteJson(field)} NOT IN ('true', 'false')`

/** A JSON string that matches the LIKE `pattern`, ignoring ASCII case. */
export function jsonTextLike(dialect: Dialect, field: JsonField, pattern: string): Predicate {
  if (dialect === 'postgres') return sql`(${pgType(field)} = 'string' AND ${likeIgnoringCase(dialect, pgText(field), pattern)})`
  return sql`(${likeIgnoringCase(dialect, sqliteText(field), pattern)} AND ${sqliteType(field)} = 'text')`
}

/**
 * "Contains", never NULL: a JSON string matches the LIKE `pattern` (given with a string value),
 * or an array has an element equal to `value` (a string ignoring ASCII case, a number, a boolean).
 */
export function jsonContains(dialect: Dialect, field: JsonField, value: string | number | boolean, pattern?: string): Predicate {
  if (dialect === 'postgres') {
    const inText = pattern === undefined ? sql`` : sql`WHEN 'string' THEN ${likeIgnoringCase(dialect, pgText(field), pattern)}`
    const element = sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${pgValue(field)}) AS e(value) WHERE ${pgElementIs(value)})`
    return sql`CASE ${pgType(field)} ${inText} WHEN 'array' THEN ${element} ELSE FALSE END`
  }
  const element = sql`EXISTS (SELECT 1 FROM json_each(${sql.ref(field.column)}, ${jsonPath(field.keys)}) AS e WHERE ${sqliteElementIs(value)})`
  const inText = pattern === undefined ? sql`` : sql`WHEN 'text' THEN ${likeIgnoringCase(dialect, sqliteText(field), pattern)}`
  return sql`CASE ${sqliteType(field)} ${inText} WHEN 'array' THEN ${element} ELSE 0 END`
}

function sqliteElementIs(value: string | number | boolean): Predicate {
  if (typeof value === 'string') return sql`e.type = 'text' AND ${equalsIgnoringCase('sqlite', sql`e.value`, value)}`
  if (typeof value === 'number') return sql`e.type IN ('integer', 'real') AND e.value = ${value}`
  return sql`e.type = ${value ? 'true' : 'false'}`
}

function pgElementIs(value: string | number | boolean): Predicate {
  if (typeof value === 'string') return sql`jsonb_typeof(e.value) = 'string' AND ${equalsIgnoringCase('postgres', sql`(e.value #>> '{}')`, value)}`
  return sql`e.value = CAST(${JSON.stringify(value)} AS jsonb)`
}

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

export type Comparison = keyof typeof COMPARE

/** A JSON number that compares with `value` so: numbers only, never a boolean or a numeric string. */
export function jsonNumberCompare(dialect: Dialect, field: JsonField, comparison: Comparison, value: number): Predicate {
  if (dialect === 'postgres') {
    // CASE, not AND: PostgreSQL may evaluate AND's sides in any order, and a cast of a string fails.
    return sql`CASE WHEN ${pgType(field)} = 'number' THEN CAST(${pgValue(field)} AS numeric) ${sql.raw(COMPARE[comparison])} ${value} END`
  }
  return sqliteNumberRange(field, comparison, value)
}

/**
 * A number in a range with one extraction a row: SQLite orders NULL < numbers < text, so
 * `BETWEEN low AND high` with infinite ends holds for numbers only. Strict bounds become the
 * nearest double beyond them.
 */
function sqliteNumberRange(field: JsonField, comparison: Comparison, n: number): Predicate {
  const bounds: Record<Comparison, [number, number]> = { gt: [nextUp(n), Infinity], gte: [n, Infinity], lt: [-Infinity, -nextUp(-n)], lte: [-Infinity, n] }
  const [low, high] = bounds[comparison]
  const range: Predicate = sql`${sqliteText(field)} BETWEEN ${low} AND ${high}`
  const holds = (x: number) => low <= x && x <= high
  return holds(0) || holds(1) ? sql`(${range} AND ${sqliteNotBoolean(field)})` : range
}

/** The smallest double greater than `x`. */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x
  if (x === 0) return Number.MIN_VALUE
  const bits = new BigInt64Array(new Float64Array([x]).buffer)
  bits[0] = bits[0]! + (x > 0 ? 1n : -1n)
  return new Float64Array(bits.buffer)[0]!
}

/**
 * A JSON string that is an ISO 8601 date whose epoch seconds pass `test` (`< 1767225600`,
 * `BETWEEN a AND b`); one without a zone is UTC. Numbers are no dates, nor strings that SQLite
 * would read as something else: a Julian day (`"12345"`), a time alone (`"12:30"`).
 */
export function jsonDateIs(dialect: Dialect, field: JsonField, test: RawBuilder<unknown>): Predicate {
  if (dialect === 'postgres') return sql`${jsonDateSeconds(pgText(field))} ${test}`
  // Text sorts after every number, so `>= ''` tells strings from numbers without looking the
  // value up twice for the contacts that hold a number. A date has `-MM-` in it, which a time
  // has not, nor a number that SQLite takes for a Julian day (those are not negative).
  const value = sqliteText(field)
  return sql`(${value} >= '' AND ${value} GLOB '*-??-*' AND unixepoch(${value}, 'subsec') ${test})`
}
