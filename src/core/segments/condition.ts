import { invalid } from '../../lib/errors.ts'
import { FIELD_HELP, OPERATOR_ALIASES, OPERATORS, parseDate, parseField, RULES, UNIT_MS, type Operator, type Unit, type ValueKind } from './fields.ts'

/*
 * A segment's condition: groups joined by `logic`; within a group its filters and its nested
 * `conditions` must all hold. Checked once on the way in, then stored and compiled as is.
 */

export type { Operator, Unit } from './fields.ts'

export interface Filter {
  field: string
  operator: Operator
  value?: string | number | boolean
  unit?: Unit
}

export interface Group {
  filters: Filter[]
  conditions?: Condition
}

export interface Condition {
  logic: 'AND' | 'OR'
  groups: Group[]
}

export const LIMITS = { depth: 10, groups: 20, filtersPerGroup: 50, filters: 200, text: 1000 } as const

/** A century: longer spans are certainly mistakes, and their milliseconds stay exact. */
const MAX_SPAN_MS = 100 * 366 * UNIT_MS.days

type Json = Record<string, unknown>

/**
 * The condition in `input`, checked and normalized: Plunk's operator names become the short ones,
 * `{field: 'segment', value: id}` becomes `{field: 'segment.<id>'}`, absent parts are dropped. A
 * bad node is a 422 naming its path under `field`, e.g. `condition.groups[1].filters[0].operator`.
 */
export function checkCondition(input: unknown, field = 'condition'): Condition {
  return checkNode(input, field, 1, { filters: 0 })
}

function checkNode(input: unknown, path: string, depth: number, count: { filters: number }): Condition {
  if (depth > LIMITS.depth) throw invalid(path, `conditions nest at most ${LIMITS.depth} levels deep`)
  const node = objectAt(input, path, ['logic', 'groups'], '{logic, groups}')
  if (node.logic !== 'AND' && node.logic !== 'OR') throw invalid(`${path}.logic`, 'must be AND or OR')
  const groups = arrayAt(node.groups, `${path}.groups`, 1, LIMITS.groups)
  return { logic: node.logic, groups: groups.map((group, i) => checkGroup(group, `${path}.groups[${i}]`, depth, count)) }
}

function checkGroup(input: unknown, path: string, depth: number, count: { filters: number }): Group {
  const group = objectAt(input, path, ['filters', 'conditions'], '{filters, conditions?}')
  const filters = arrayAt(group.filters ?? [], `${path}.filters`, 0, LIMITS.filtersPerGroup).map((filter, i) => {
    if (++count.filters > LIMITS.filters) throw invalid(`${path}.filters[${i}]`, `a condition holds at most ${LIMITS.filters} filters in all`)
    return checkFilter(filter, `${path}.filters[${i}]`)
  })
  const nested = group.conditions === undefined || group.conditions === null ? undefined : checkNode(group.conditions, `${path}.conditions`, depth + 1, count)
  if (filters.length === 0 && !nested) throw invalid(path, 'a group needs at least one filter or a nested condition')
  return nested ? { filters, conditions: nested } : { filters }
}

function checkFilter(input: unknown, path: string): Filter {
  const raw = objectAt(input, path, ['field', 'operator', 'value', 'unit'], '{field, operator, value?, unit?}')
  if (typeof raw.field !== 'string' || raw.field.length > 500) throw invalid(`${path}.field`, FIELD_HELP)
  let name = raw.field
  let value = raw.value
  if (name === 'segment') {
    if (typeof value !== 'string' || value === '') throw invalid(`${path}.value`, 'must be the id of a segment')
    name = `segment.${value}`
    value = undefined
  }
  const field = parseField(name)
  if (typeof field === 'string') throw invalid(`${path}.field`, field)
  const operator = typeof raw.operator === 'string' ? (OPERATOR_ALIASES[raw.operator] ?? raw.operator) : undefined
  if (!OPERATORS.includes(operator as Operator)) throw invalid(`${path}.operator`, `must be one of ${OPERATORS.join(', ')}`)
  const kind = RULES[field.kind][operator as Operator]
  if (!kind) throw invalid(`${path}.operator`, `${operator} does not apply to ${name}; use ${Object.keys(RULES[field.kind]).join(', ')}`)
  return { field: name, operator: operator as Operator, ...checkValue(kind, value, raw.unit, path) }
}

const given = (value: unknown) => value !== undefined && value !== null

const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= LIMITS.text
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const isDate = (value: unknown): value is string => typeof value === 'string' && parseDate(value) !== undefined

const VALUE_CHECKS: Record<Exclude<ValueKind, 'none' | 'span'>, [(value: unknown) => boolean, string]> = {
  text: [isText, `must be a string of at most ${LIMITS.text} characters`],
  boolean: [(value) => typeof value === 'boolean', 'must be true or false'],
  scalar: [(value) => isText(value) || isNumber(value) || typeof value === 'boolean', `must be a string (at most ${LIMITS.text} characters), a number or a boolean`],
  order: [(value) => isNumber(value) || isDate(value), 'must be a number or an ISO 8601 date (2026-11-01 or 2026-11-01T12:00:00Z)'],
  date: [isDate, 'must be an ISO 8601 date (2026-11-01 or 2026-11-01T12:00:00Z)'],
}

function checkValue(kind: ValueKind, value: unknown, unit: unknown, path: string): Pick<Filter, 'value' | 'unit'> {
  if (kind === 'span') return checkSpan(value, unit, path)
  if (given(unit)) throw invalid(`${path}.unit`, 'only within, olderThan and triggeredWithin take a unit')
  if (kind === 'none') {
    if (given(value)) throw invalid(`${path}.value`, 'this operator takes no value')
    return {}
  }
  const [accepts, message] = VALUE_CHECKS[kind]
  if (!accepts(value)) throw invalid(`${path}.value`, message)
  return { value: value as Filter['value'] }
}

function checkSpan(value: unknown, unit: unknown, path: string): Pick<Filter, 'value' | 'unit'> {
  if (!isNumber(value) || value <= 0) throw invalid(`${path}.value`, 'must be a positive number (of the unit)')
  if (typeof unit !== 'string' || !Object.hasOwn(UNIT_MS, unit)) throw invalid(`${path}.unit`, `is required: ${Object.keys(UNIT_MS).join(', ')}`)
  if (value * UNIT_MS[unit as Unit] > MAX_SPAN_MS) throw invalid(`${path}.value`, 'must be at most a hundred years')
  return { value, unit: unit as Unit }
}

function objectAt(input: unknown, path: string, keys: readonly string[], shape: string): Json {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid(path, `must be an object ${shape}`)
  const unknown = Object.keys(input).find((key) => !keys.includes(key))
  if (unknown !== undefined) throw invalid(`${path}.${unknown}`, `is not part of ${shape}`)
  return input as Json
}

function arrayAt(input: unknown, path: string, min: number, max: number): unknown[] {
  if (!Array.isArray(input) || input.length < min || input.length > max) throw invalid(path, `must be a list of ${min} to ${max}`)
  return input
}

/** Calls `visit` with every filter of the condition, nested ones too, and its path. */
export function forEachFilter(condition: Condition, visit: (filter: Filter, path: string) => void, path = 'condition'): void {
  condition.groups.forEach((group, i) => {
    group.filters.forEach((filter, j) => visit(filter, `${path}.groups[${i}].filters[${j}]`))
    if (group.conditions) forEachFilter(group.conditions, visit, `${path}.groups[${i}].conditions`)
  })
}

/** The segment a filter is about, if it is about one. */
export const segmentIdOf = (filter: Filter): string | undefined => (filter.field.startsWith('segment.') ? filter.field.slice('segment.'.length) : undefined)

/** The ids of the segments the condition names, each once. */
export function segmentRefs(condition: Condition): string[] {
  const ids = new Set<string>()
  forEachFilter(condition, (filter) => {
    const id = segmentIdOf(filter)
    if (id) ids.add(id)
  })
  return [...ids]
}

/** A condition as answered (a segment's, a campaign's audience): every group shows its `conditions`, null when it has none. */
export const conditionAsAnswered = (condition: Condition): unknown => ({
  logic: condition.logic,
  groups: condition.groups.map((group) => ({ filters: group.filters, conditions: group.conditions ? conditionAsAnswered(group.conditions) : null })),
})
