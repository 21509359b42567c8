import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Filter } from './condition.ts'
import { parseDate, UNIT_MS, type Activity } from './fields.ts'

/*
 * One filter as SQL over the contacts alias `c`. Every value travels as a parameter, JSON paths
 * too. Text compares case-insensitively by SQLite's NOCASE and LIKE, which fold ASCII only.
 */

export type Predicate = RawBuilder<SqlBool>

export const TRUE: Predicate = sql`1`
export const FALSE: Predicate = sql`0`

/**
 * True where `predicate` is false or unknown: a comparison with a missing key is NULL, and the
 * negative operators include the contacts that lack the key.
 */
export const not = (predicate: Predicate): Predicate => sql`NOT coalesce(${predicate}, 0)`

type Value = NonNullable<Filter['value']>

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => '\\' + ch)

const PATTERNS: Record<string, (text: string) => string> = {
  contains: (text) => `%${text}%`,
  notContains: (text) => `%${text}%`,
  startsWith: (text) => `${text}%`,
  endsWith: (text) => `%${text}`,
}

const like = (expression: RawBuilder<unknown>, filter: Filter): Predicate =>
  sql`${expression} LIKE ${PATTERNS[filter.operator]!(escapeLike(filter.value as string))} ESCAPE '\\'`

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as Record<string, string>

/** The start of the filter's window: `value` units before now. */
const since = (filter: Filter, now: number) => now - (filter.value as number) * UNIT_MS[filter.unit!]

export function emailPredicate(filter: Filter): Predicate {
  const email = sql`c.email`
  switch (filter.operator) {
    case 'equals':
      return sql`c.email = ${filter.value} COLLATE NOCASE`
    case 'notEquals':
      return sql`c.email <> ${filter.value} COLLATE NOCASE`
    case 'notContains':
      return not(like(email, filter))
    default:
      return like(email, filter)
  }
}

export function subscribedPredicate(filter: Filter): Predicate {
  const wanted = (filter.operator === 'equals') === filter.value
  // Most contacts are subscribed: reaching them through the subscribed index costs more than
  // reading the project's contacts, so only the (few) unsubscribed ones are looked up by it.
  return wanted ? sql`+c.subscribed = 1` : sql`c.subscribed = 0`
}

/** createdAt and updatedAt: epoch milliseconds. */
export function timePredicate(column: 'created_at' | 'updated_at', filter: Filter, now: number): Predicate {
  const ref = sql.ref(`c.${column}`)
  if (filter.operator === 'within') return sql`${ref} >= ${since(filter, now)}`
  if (filter.operator === 'olderThan') return sql`${ref} < ${since(filter, now)}`
  return sql`${ref} ${sql.raw(COMPARE[filter.operator]!)} ${parseDate(filter.value as string)}`
}

export function dataPredicate(keys: readonly string[], filter: Filter, now: number): Predicate {
  const path = jsonPath(keys)
  const value = sql`(c.data ->> ${path})`
  const type = sql`json_type(c.data, ${path})`
  switch (filter.operator) {
    case 'exists':
      return sql`coalesce(${type}, 'null') <> 'null'`
    case 'notExists':
      return sql`coalesce(${type}, 'null') = 'null'`
    case 'equals':
      return dataEquals(path, filter.value!)
    case 'notEquals':
      return not(dataEquals(path, filter.value!))
    case 'contains':
      return dataContains(path, filter)
    case 'notContains':
      return not(dataContains(path, filter))
    case 'startsWith':
    case 'endsWith':
      return sql`(${like(value, filter)} AND ${type} = 'text')`
    case 'within':
      return dateIs(value, sql`BETWEEN ${since(filter, now) / 1000} AND ${now / 1000}`)
    case 'olderThan':
      return dateIs(value, sql`< ${since(filter, now) / 1000}`)
  }
  if (typeof filter.value === 'number') return numberRange(path, filter.operator, filter.value)
  return dateIs(value, sql`${sql.raw(COMPARE[filter.operator]!)} ${parseDate(filter.value as string)! / 1000}`)
}

/** A JSON path to nested keys: plain names as they are (parsed faster), others quoted. */
export const jsonPath = (keys: readonly string[]) => '$' + keys.map((key) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `."${key}"`)).join('')

/**
 * Dates in data are ISO 8601 strings. Only a string is read as one (SQLite would take a number
 * for a Julian day), and text sorts after every number, so `>= ''` tells them apart without
 * looking the value up twice for the contacts that hold a number.
 */
const dateIs = (value: RawBuilder<unknown>, test: RawBuilder<unknown>): Predicate => sql`(${value} >= '' AND unixepoch(${value}, 'subsec') ${test})`

/** `->>` reads JSON true and false as 1 and 0; `->` gives them back as JSON text. */
const notBoolean = (path: string) => sql`(c.data -> ${path}) NOT IN ('true', 'false')`

function dataEquals(path: string, value: Value): Predicate {
  if (typeof value === 'boolean') return sql`(c.data -> ${path}) = ${value ? 'true' : 'false'}`
  const extracted = sql`(c.data ->> ${path})`
  if (typeof value === 'number') return value === 0 || value === 1 ? sql`(${extracted} = ${value} AND ${notBoolean(path)})` : sql`${extracted} = ${value}`
  // Arrays and objects are extracted as their JSON text, which only a string that looks like JSON
  // could equal: only then is the type looked at.
  const text: Predicate = sql`${extracted} = ${value} COLLATE NOCASE`
  return /^\s*[[{]/.test(value) ? sql`(${text} AND json_type(c.data, ${path}) = 'text')` : text
}

/** A string holds the text; an array holds an element equal to the value. Never NULL. */
function dataContains(path: string, filter: Filter): Predicate {
  const value = filter.value!
  const element = sql`EXISTS (SELECT 1 FROM json_each(c.data, ${path}) AS e WHERE ${elementIs(value)})`
  const inText = typeof value === 'string' ? sql`WHEN 'text' THEN ${like(sql`(c.data ->> ${path})`, filter)}` : sql``
  return sql`CASE json_type(c.data, ${path}) ${inText} WHEN 'array' THEN ${element} ELSE 0 END`
}

function elementIs(value: Value): Predicate {
  if (typeof value === 'string') return sql`e.type = 'text' AND e.value = ${value} COLLATE NOCASE`
  if (typeof value === 'number') return sql`e.type IN ('integer', 'real') AND e.value = ${value}`
  return sql`e.type = ${value ? 'true' : 'false'}`
}

/**
 * A number in a range with one extraction a row: SQLite orders NULL < numbers < text, so
 * `BETWEEN low AND high` with infinite ends holds for numbers only. Strict bounds become the
 * nearest double beyond them.
 */
function numberRange(path: string, operator: string, n: number): Predicate {
  const [low, high] = { gt: [nextUp(n), Infinity], gte: [n, Infinity], lt: [-Infinity, -nextUp(-n)], lte: [-Infinity, n] }[operator]!
  const range: Predicate = sql`(c.data ->> ${path}) BETWEEN ${low} AND ${high}`
  const holds = (x: number) => low! <= x && x <= high!
  return holds(0) || holds(1) ? sql`(${range} AND ${notBoolean(path)})` : range
}

/** The smallest double greater than `x`. */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x
  if (x === 0) return Number.MIN_VALUE
  const bits = new BigInt64Array(new Float64Array([x]).buffer)
  bits[0] = bits[0]! + (x > 0 ? 1n : -1n)
  return new Float64Array(bits.buffer)[0]!
}

export function eventPredicate(name: string, filter: Filter, now: number): Predicate {
  return happened(sql`SELECT 1 FROM events AS e WHERE e.contact_id = c.id AND e.name = ${name}`, sql`e.created_at`, filter, now)
}

/** Mail activity: an email event of that status on one of the contact's emails. */
export function activityPredicate(status: Activity, filter: Filter, now: number): Predicate {
  const rows = sql`SELECT 1 FROM emails AS em JOIN email_events AS ev ON ev.email_id = em.id WHERE em.contact_id = c.id AND ev.status = ${status.toUpperCase()}`
  return happened(rows, sql`ev.created_at`, filter, now)
}

function happened(rows: RawBuilder<unknown>, at: RawBuilder<unknown>, filter: Filter, now: number): Predicate {
  if (filter.operator === 'triggered') return sql`EXISTS (${rows})`
  if (filter.operator === 'notTriggered') return sql`NOT EXISTS (${rows})`
  return sql`EXISTS (${rows} AND ${at} >= ${since(filter, now)})`
}
