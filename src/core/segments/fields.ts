/*
 * What a filter may name and which operators apply to it: the one table that validation and the
 * compiler share.
 */

export const OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'notExists',
  'within',
  'olderThan',
  'triggered',
  'notTriggered',
  'triggeredWithin',
  'memberOfSegment',
  'notMemberOfSegment',
] as const
export type Operator = (typeof OPERATORS)[number]

/** Plunk's names for the comparisons: accepted, and stored as the short ones. */
export const OPERATOR_ALIASES: Readonly<Record<string, Operator>> = {
  greaterThan: 'gt',
  greaterThanOrEqual: 'gte',
  lessThan: 'lt',
  lessThanOrEqual: 'lte',
}

export const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 } as const
export type Unit = keyof typeof UNIT_MS

/** The operators whose answer changes as time passes, with nothing else changing. */
export const TIME_OPERATORS: ReadonlySet<Operator> = new Set(['within', 'olderThan', 'triggeredWithin'])

export const ACTIVITIES = ['delivered', 'opened', 'clicked', 'bounced', 'complained'] as const
export type Activity = (typeof ACTIVITIES)[number]

export type Field =
  | { kind: 'email' }
  | { kind: 'subscribed' }
  | { kind: 'time'; column: 'created_at' | 'updated_at' }
  | { kind: 'data'; keys: string[] }
  | { kind: 'event'; name: string }
  | { kind: 'activity'; status: Activity }
  | { kind: 'segment'; id: string }

/**
 * What value each operator takes on each kind of field; an operator missing from a field's row
 * does not apply to it. none: no value; text: a string; boolean; scalar: a string, number or
 * boolean; order: a number or an ISO 8601 date; date: an ISO 8601 date; span: a positive number
 * of `unit`s.
 */
export type ValueKind = 'none' | 'text' | 'boolean' | 'scalar' | 'order' | 'date' | 'span'

const EVENT_OPERATORS = { triggered: 'none', notTriggered: 'none', triggeredWithin: 'span' } as const

export const RULES: Readonly<Record<Field['kind'], Partial<Record<Operator, ValueKind>>>> = {
  email: { equals: 'text', notEquals: 'text', contains: 'text', notContains: 'text', startsWith: 'text', endsWith: 'text' },
  subscribed: { equals: 'boolean', notEquals: 'boolean' },
  time: { gt: 'date', gte: 'date', lt: 'date', lte: 'date', within: 'span', olderThan: 'span' },
  data: {
    equals: 'scalar',
    notEquals: 'scalar',
    contains: 'scalar',
    notContains: 'scalar',
    startsWith: 'text',
    endsWith: 'text',
    gt: 'order',
    gte: 'order',
    lt: 'order',
    lte: 'order',
    exists: 'none',
    notExists: 'none',
    within: 'span',
    olderThan: 'span',
  },
  event: EVENT_OPERATORS,
  activity: EVENT_OPERATORS,
  segment: { memberOfSegment: 'none', notMemberOfSegment: 'none' },
}

export const FIELD_HELP = 'must be email, subscribed, createdAt, updatedAt, data.<key>, event.<name>, email.<status> or segment.<id>'

const CONTROL = /[\u0000-\u001f\u007f]/

/** The field a filter names, or why it names none. */
export function parseField(field: string): Field | string {
  if (field === 'email') return { kind: 'email' }
  if (field === 'subscribed') return { kind: 'subscribed' }
  if (field === 'createdAt') return { kind: 'time', column: 'created_at' }
  if (field === 'updatedAt') return { kind: 'time', column: 'updated_at' }
  const dot = field.indexOf('.')
  if (dot < 0) return FIELD_HELP
  const rest = field.slice(dot + 1)
  switch (field.slice(0, dot)) {
    case 'data':
      return dataField(rest)
    case 'event':
      return rest.length >= 1 && rest.length <= 100 && !CONTROL.test(rest) ? { kind: 'event', name: rest } : 'event.<name> needs an event name of 1 to 100 characters'
    case 'email':
      return (ACTIVITIES as readonly string[]).includes(rest) ? { kind: 'activity', status: rest as Activity } : `email.<status> takes a status: ${ACTIVITIES.join(', ')}`
    case 'segment':
      return rest.length >= 1 && rest.length <= 100 && !CONTROL.test(rest) ? { kind: 'segment', id: rest } : 'segment.<id> needs the id of a segment'
  }
  return FIELD_HELP
}

/** Dots reach nested keys; a key that holds a dot or a double quote cannot be named. */
function dataField(path: string): Field | string {
  const keys = path.split('.')
  const bad = keys.some((key) => key.length === 0 || key.length > 200 || key.includes('"') || CONTROL.test(key))
  return bad || path.length === 0 ? 'data.<key> needs a key (nested keys joined by dots) without double quotes or control characters' : { kind: 'data', keys }
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:\d{2})?)?$/

/**
 * An ISO 8601 date or date-time as epoch milliseconds, or undefined when it is not one. Without a
 * zone it is UTC, as SQLite reads such dates.
 */
export function parseDate(text: string): number | undefined {
  const m = ISO_DATE.exec(text)
  if (!m) return undefined
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part))) as number[]
  const ms = Number((m[7] ?? '').padEnd(3, '0'))
  const utc = new Date(Date.UTC(year!, month! - 1, day, hour, minute, second, ms))
  const valid = utc.getUTCFullYear() === year && utc.getUTCMonth() === month! - 1 && utc.getUTCDate() === day && hour < 24 && minute < 60 && second < 60
  if (!valid) return undefined
  const zone = m[8] && m[8] !== 'Z' ? m[8] : undefined
  const offset = zone ? (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4))) : 0
  return utc.getTime() - offset * 60_000
}
