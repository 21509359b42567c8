/**
 * The contacts table's filters and order, kept in the address's query string so that a reload or a
 * shared link shows the same list: what the address says, what it becomes, and what GET /contacts
 * (and its export and bulk actions) are asked. A data field and a segment become one segment
 * condition, the API's one way to filter by them.
 */

export const DATA_OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists'] as const
export type DataOperator = (typeof DATA_OPERATORS)[number]

export const OPERATOR_WORDS: Record<DataOperator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  startsWith: 'starts with',
  endsWith: 'ends with',
  gt: 'is greater than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  exists: 'is set',
  notExists: 'is not set',
}

/** The operators that take no value. */
export const VALUELESS: ReadonlySet<DataOperator> = new Set(['exists', 'notExists'])
/** The operators that compare text: their value stays text, even when it reads as a number. */
const TEXTUAL: ReadonlySet<DataOperator> = new Set(['contains', 'notContains', 'startsWith', 'endsWith'])

export interface ContactFilters {
  search?: string
  subscribed?: 'true' | 'false'
  /** A data key, with its operator and (unless it takes none) its value. */
  key?: string
  op?: DataOperator
  value?: string
  /** A segment's id: its members only. */
  segment?: string
  sort?: 'email' | 'createdAt'
  dir?: 'asc' | 'desc'
}

const NAMES = ['search', 'subscribed', 'key', 'op', 'value', 'segment', 'sort', 'dir'] as const satisfies readonly (keyof ContactFilters)[]

const isOperator = (value: string): value is DataOperator => (DATA_OPERATORS as readonly string[]).includes(value)

/** One value as it may stand, or undefined when blank or not what the API takes. */
function clean(name: keyof ContactFilters, raw: string | null): string | undefined {
  const value = (raw ?? '').trim()
  if (value === '') return undefined
  switch (name) {
    case 'subscribed':
      return value === 'true' || value === 'false' ? value : undefined
    case 'op':
      return isOperator(value) ? value : undefined
    case 'sort':
      return value === 'email' || value === 'createdAt' ? value : undefined
    case 'dir':
      return value === 'asc' || value === 'desc' ? value : undefined
    case 'key':
      return value.slice(0, 200)
    default:
      return value.slice(0, name === 'search' ? 254 : 1000)
  }
}

/** The filters an address's query string names; a data filter without its key or operator is left out whole. */
export function filtersFromSearch(search: string): ContactFilters {
  const params = new URLSearchParams(search)
  const filters: Record<string, string> = {}
  for (const name of NAMES) {
    const value = clean(name, params.get(name))
    if (value !== undefined) filters[name] = value
  }
  const result = filters as ContactFilters
  if (!result.key || !result.op || (!VALUELESS.has(result.op) && result.value === undefined)) {
    delete result.key
    delete result.op
    delete result.value
  } else if (VALUELESS.has(result.op)) delete result.value
  return result
}

/** The query string of the filters, without the `?`: empty when there are none. */
export function searchOf(filters: ContactFilters): string {
  const params = new URLSearchParams()
  for (const name of NAMES) {
    const value = filters[name]
    if (value !== undefined && value !== '') params.set(name, value)
  }
  return params.toString()
}

/** Whether any filter is on (the order is not a filter). */
export const hasFilters = (filters: ContactFilters) => Boolean(filters.search || filters.subscribed || filters.key || filters.segment)

/** A value typed into the form as the condition takes it: a number or true/false when it reads as one, unless compared as text. */
function typedValue(op: DataOperator, value: string): string | number | boolean {
  if (TEXTUAL.has(op)) return value
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value)
  if (value === 'true' || value === 'false') return value === 'true'
  return value
}

/** The segment condition the data field and the segment make; undefined when neither is on. */
export function conditionOf(filters: ContactFilters): object | undefined {
  const parts: object[] = []
  if (filters.key && filters.op) {
    parts.push({ field: `data.${filters.key}`, operator: filters.op, ...(!VALUELESS.has(filters.op) && { value: typedValue(filters.op, filters.value ?? '') }) })
  }
  if (filters.segment) parts.push({ field: `segment.${filters.segment}`, operator: 'memberOfSegment' })
  return parts.length === 0 ? undefined : { logic: 'AND', groups: [{ filters: parts }] }
}

/** The filter as GET /contacts and GET /contacts/export take it in their query. */
export function listQuery(filters: ContactFilters): Record<string, string | undefined> {
  const condition = conditionOf(filters)
  return { search: filters.search, subscribed: filters.subscribed, condition: condition && JSON.stringify(condition) }
}

/** The filter as a bulk action's body takes it. */
export function bulkFilter(filters: ContactFilters): { search?: string; subscribed?: boolean; condition?: object } {
  const condition = conditionOf(filters)
  return {
    ...(filters.search && { search: filters.search }),
    ...(filters.subscribed && { subscribed: filters.subscribed === 'true' }),
    ...(condition && { condition }),
  }
}

/** Each filter on, in words, with the filters left once it is removed: the chips of the filter bar. */
export function filterChips(filters: ContactFilters, segmentName: (id: string) => string): Array<{ id: string; label: string; without: ContactFilters }> {
  const chips: Array<{ id: string; label: string; without: ContactFilters }> = []
  if (filters.subscribed) chips.push({ id: 'subscribed', label: filters.subscribed === 'true' ? 'Subscribed' : 'Unsubscribed', without: { ...filters, subscribed: undefined } })
  if (filters.key && filters.op) {
    const value = VALUELESS.has(filters.op) ? '' : ` “${filters.value}”`
    chips.push({ id: 'data', label: `${filters.key} ${OPERATOR_WORDS[filters.op]}${value}`, without: { ...filters, key: undefined, op: undefined, value: undefined } })
  }
  if (filters.segment) chips.push({ id: 'segment', label: `In ${segmentName(filters.segment)}`, without: { ...filters, segment: undefined } })
  return chips
}
