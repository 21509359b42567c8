import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { equalsIgnoringCase, likeIgnoringCase, likePattern } from '../../db/caseless.ts'
import type { Dialect } from '../../db/client.ts'
import * as json from '../../db/json-query.ts'
import type { JsonField } from '../../db/json-query.ts'
import { contactEmailActivity } from '../emails/email-queries.ts'
import { contactEvents } from '../events/event-queries.ts'
import type { Filter } from './condition.ts'
import { parseDate, UNIT_MS, type Activity } from './fields.ts'

/*
 * One filter as SQL over the contacts alias `c`, in the dialect's SQL (src/db says how each
 * test on text or JSON is written in it). Every value travels as a parameter, JSON keys too. Text
 * compares ignoring ASCII case only.
 */

export type Predicate = RawBuilder<SqlBool>

export { nextUp } from '../../db/json-query.ts'

export const TRUE: Predicate = sql`TRUE`
export const FALSE: Predicate = sql`FALSE`

/**
 * True where `predicate` is false or unknown: a comparison with a missing key is NULL, and the
 * negative operators include the contacts that lack the key.
 */
export const not = (predicate: Predicate): Predicate => sql`NOT coalesce(${predicate}, FALSE)`

type Value = NonNullable<Filter['value']>

/** The LIKE pattern of contains, notContains, startsWith and endsWith: the value taken literally. */
const pattern = (filter: Filter) => likePattern(filter.value as string, filter.operator === 'notContains' ? 'contains' : (filter.operator as 'contains' | 'startsWith' | 'endsWith'))

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as Record<string, string>

/**
 * The start of the filter's window: `value` units before now. Rounded up to a whole millisecond,
 * as the times it is compared with are: a column holds none between.
 */
const since = (filter: Filter, now: number) => Math.ceil(now - (filter.value as number) * UNIT_MS[filter.unit!])

export function emailPredicate(dialect: Dialect, filter: Filter): Predicate {
  const email = sql`c.email`
  switch (filter.operator) {
    case 'equals':
      return equalsIgnoringCase(dialect, email, filter.value as string)
    case 'notEquals':
      return equalsIgnoringCase(dialect, email, filter.value as string, true)
    case 'notContains':
      return not(likeIgnoringCase(dialect, email, pattern(filter)))
    default:
      return likeIgnoringCase(dialect, email, pattern(filter))
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

export function dataPredicate(dialect: Dialect, keys: readonly string[], filter: Filter, now: number): Predicate {
  const field: JsonField = { column: 'c.data', keys }
  switch (filter.operator) {
    case 'exists':
      return json.jsonPresent(dialect, field, true)
    case 'notExists':
      return json.jsonPresent(dialect, field, false)
    case 'equals':
      return dataEquals(dialect, field, filter.value!)
    case 'notEquals':
      return not(dataEquals(dialect, field, filter.value!))
    case 'contains':
      return dataContains(dialect, field, filter)
    case 'notContains':
      return not(dataContains(dialect, field, filter))
    case 'startsWith':
    case 'endsWith':
      return json.jsonTextLike(dialect, field, pattern(filter))
    case 'within':
      return json.jsonDateIs(dialect, field, sql`BETWEEN ${since(filter, now) / 1000} AND ${now / 1000}`)
    case 'olderThan':
      return json.jsonDateIs(dialect, field, sql`< ${since(filter, now) / 1000}`)
  }
  const comparison = filter.operator as json.Comparison
  if (typeof filter.value === 'number') return json.jsonNumberCompare(dialect, field, comparison, filter.value)
  return json.jsonDateIs(dialect, field, sql`${sql.raw(COMPARE[comparison]!)} ${parseDate(filter.value as string)! / 1000}`)
}

function dataEquals(dialect: Dialect, field: JsonField, value: Value): Predicate {
  if (typeof value === 'boolean') return json.jsonEqualsBoolean(dialect, field, value)
  if (typeof value === 'number') return json.jsonEqualsNumber(dialect, field, value)
  return json.jsonEqualsText(dialect, field, value)
}

/** A string holds the text; an array holds an element equal to the value. Never NULL. */
const dataContains = (dialect: Dialect, field: JsonField, filter: Filter): Predicate =>
  json.jsonContains(dialect, field, filter.value!, typeof filter.value === 'string' ? pattern(filter) : undefined)

export function eventPredicate(name: string, filter: Filter, now: number): Predicate {
  const { rows, at } = contactEvents(sql`c.id`, name)
  return happened(rows, at, filter, now)
}

/** Mail activity: an email event of that status on one of the contact's emails. */
export function activityPredicate(status: Activity, filter: Filter, now: number): Predicate {
  const { rows, at } = contactEmailActivity(sql`c.id`, status.toUpperCase())
  return happened(rows, at, filter, now)
}

function happened(rows: RawBuilder<unknown>, at: RawBuilder<unknown>, filter: Filter, now: number): Predicate {
  if (filter.operator === 'triggered') return sql`EXISTS (${rows})`
  if (filter.operator === 'notTriggered') return sql`NOT EXISTS (${rows})`
  return sql`EXISTS (${rows} AND ${at} >= ${since(filter, now)})`
}
