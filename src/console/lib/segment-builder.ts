/*
 * The segment builder's model: a condition as the form edits it (every input a string, every
 * node with a key for React), what each field allows (operators, values) and the condition sent
 * to the API. RULES mirrors src/core/segments/fields.ts, which the console cannot import (it reaches
 * the server over HTTP only); segment-builder.test.ts compares the two so they cannot drift.
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

export const UNITS = ['minutes', 'hours', 'days', 'weeks'] as const
export type Unit = (typeof UNITS)[number]

export const ACTIVITIES = ['delivered', 'opened', 'clicked', 'bounced', 'complained'] as const

/** What an operator takes on a kind of field, as the server says (fields.ts). */
export type ValueKind = 'none' | 'text' | 'boolean' | 'scalar' | 'order' | 'date' | 'span'
export type FieldKind = 'email' | 'subscribed' | 'time' | 'data' | 'event' | 'activity' | 'segment'

const EVENT_OPERATORS = { triggered: 'none', notTriggered: 'none', triggeredWithin: 'span' } as const

export const RULES: Readonly<Record<FieldKind, Partial<Record<Operator, ValueKind>>>> = {
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

/** The field picker's choices: the four named fields, and four families that take a name. */
export const FIELD_CHOICES = [
  { id: 'email', label: 'Email address', kind: 'email' },
  { id: 'subscribed', label: 'Subscribed', kind: 'subscribed' },
  { id: 'createdAt', label: 'Created', kind: 'time' },
  { id: 'updatedAt', label: 'Updated', kind: 'time' },
  { id: 'data', label: 'Data field', kind: 'data' },
  { id: 'event', label: 'Event', kind: 'event' },
  { id: 'email.', label: 'Email activity', kind: 'activity' },
  { id: 'segment', label: 'Segment', kind: 'segment' },
] as const satisfies readonly { id: string; label: string; kind: FieldKind }[]
export type FieldChoice = (typeof FIELD_CHOICES)[number]['id']

export const OPERATOR_WORDS: Record<Operator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  startsWith: 'starts with',
  endsWith: 'ends with',
  gt: 'is after / more than',
  gte: 'is on or after / at least',
  lt: 'is before / less than',
  lte: 'is on or before / at most',
  exists: 'is set',
  notExists: 'is not set',
  within: 'in the last',
  olderThan: 'more than … ago',
  triggered: 'happened',
  notTriggered: 'never happened',
  triggeredWithin: 'happened in the last',
  memberOfSegment: 'is a member',
  notMemberOfSegment: 'is not a member',
}

/** How a value is typed in: scalar values are text, a number or a boolean; order values a number or a date. */
export type ValueType = 'text' | 'number' | 'boolean' | 'date'

export const VALUE_TYPES: Record<ValueKind, readonly ValueType[]> = {
  none: [],
  text: ['text'],
  boolean: ['boolean'],
  scalar: ['text', 'number', 'boolean'],
  order: ['number', 'date'],
  date: ['date'],
  span: ['number'],
}

export interface DraftFilter {
  key: string
  choice: FieldChoice
  /** The data key, event name, email status or segment id the field takes; '' for the others. */
  name: string
  operator: Operator
  valueType: ValueType
  /** As typed; 'true' or 'false' for a boolean. */
  value: string
  unit: Unit
}

export interface DraftGroup {
  key: string
  filters: DraftFilter[]
  nested: DraftCondition | null
}

export interface DraftCondition {
  logic: 'AND' | 'OR'
  groups: DraftGroup[]
}

/** A filter as the API takes it. */
export interface Filter {
  field: string
  operator: string
  value?: string | number | boolean
  unit?: string
}
export interface Condition {
  logic: 'AND' | 'OR'
  groups: { filters: Filter[]; conditions?: Condition | null }[]
}

let counter = 0
const nextKey = () => `n${++counter}`

export const kindOf = (choice: FieldChoice): FieldKind => FIELD_CHOICES.find((c) => c.id === choice)!.kind
export const operatorsFor = (choice: FieldChoice) => Object.keys(RULES[kindOf(choice)]) as Operator[]
export const valueKindOf = (filter: Pick<DraftFilter, 'choice' | 'operator'>): ValueKind => RULES[kindOf(filter.choice)][filter.operator] ?? 'none'
export const valueTypesOf = (filter: Pick<DraftFilter, 'choice' | 'operator'>) => VALUE_TYPES[valueKindOf(filter)]

/** What the name input of a field family is called; undefined for fields that take no name. */
export function nameLabel(choice: FieldChoice): string | undefined {
  if (choice === 'data') return 'Key'
  if (choice === 'event') return 'Event name'
  if (choice === 'email.') return 'Activity'
  if (choice === 'segment') return 'Segment'
  return undefined
}

export function newFilter(choice: FieldChoice = 'email'): DraftFilter {
  return withChoice({ key: nextKey(), choice, name: '', operator: 'equals', valueType: 'text', value: '', unit: 'days' }, choice)
}

export const newGroup = (): DraftGroup => ({ key: nextKey(), filters: [newFilter()], nested: null })
export const newCondition = (): DraftCondition => ({ logic: 'AND', groups: [newGroup()] })

/** The filter on another field: its operator kept when it applies there, else the field's first. */
export function withChoice(filter: DraftFilter, choice: FieldChoice): DraftFilter {
  const operators = operatorsFor(choice)
  const operator = operators.includes(filter.operator) ? filter.operator : operators[0]!
  const name = choice === filter.choice ? filter.name : choice === 'email.' ? ACTIVITIES[0] : ''
  return withOperator({ ...filter, choice, name }, operator)
}

/** The filter with another operator: the value's type kept when it still applies, the value cleared when the type changes. */
export function withOperator(filter: DraftFilter, operator: Operator): DraftFilter {
  const types = valueTypesOf({ choice: filter.choice, operator })
  const valueType = types.includes(filter.valueType) ? filter.valueType : (types[0] ?? 'text')
  return withValueType({ ...filter, operator }, valueType)
}

export function withValueType(filter: DraftFilter, valueType: ValueType): DraftFilter {
  if (valueType === filter.valueType) return filter
  return { ...filter, valueType, value: valueType === 'boolean' ? 'true' : '' }
}

/** The field's name as the API spells it: email, createdAt, data.plan, event.signup, email.opened, segment.<id>. */
export function fieldOf(filter: Pick<DraftFilter, 'choice' | 'name'>): string {
  if (filter.choice === 'data' || filter.choice === 'event' || filter.choice === 'segment') return `${filter.choice}.${filter.name}`
  if (filter.choice === 'email.') return `email.${filter.name}`
  return filter.choice
}

/** A typed value as sent: numbers that read as numbers, booleans; anything else as typed, for the server to judge. */
function valueOf(filter: DraftFilter): string | number | boolean {
  if (filter.valueType === 'boolean') return filter.value === 'true'
  const text = filter.value.trim()
  if (filter.valueType === 'number' && text !== '' && Number.isFinite(Number(text))) return Number(text)
  return filter.valueType === 'number' ? text : filter.value
}

export function toFilter(filter: DraftFilter): Filter {
  const kind = valueKindOf(filter)
  const base = { field: fieldOf(filter), operator: filter.operator }
  if (kind === 'none') return base
  if (kind === 'span') return { ...base, value: valueOf(filter), unit: filter.unit }
  return { ...base, value: valueOf(filter) }
}

export function toCondition(draft: DraftCondition): Condition {
  return {
    logic: draft.logic,
    groups: draft.groups.map((group) => ({ filters: group.filters.map(toFilter), ...(group.nested && { conditions: toCondition(group.nested) }) })),
  }
}

const ALIASES: Record<string, Operator> = { greaterThan: 'gt', greaterThanOrEqual: 'gte', lessThan: 'lt', lessThanOrEqual: 'lte' }

/** A stored filter as the form shows it. */
export function fromFilter(filter: Filter): DraftFilter {
  const field = filter.field
  const dot = field.indexOf('.')
  const head = dot < 0 ? field : field.slice(0, dot)
  const rest = dot < 0 ? '' : field.slice(dot + 1)
  const choice: FieldChoice =
    field === 'email' || field === 'subscribed' || field === 'createdAt' || field === 'updatedAt' ? field : head === 'email' ? 'email.' : head === 'data' || head === 'event' || head === 'segment' ? head : 'email'
  const operator = (ALIASES[filter.operator] ?? filter.operator) as Operator
  const value = filter.value
  const valueType: ValueType = typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'number' : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && valueTypesOf({ choice, operator }).includes('date') ? 'date' : 'text'
  const draft: DraftFilter = { key: nextKey(), choice, name: choice === 'data' || choice === 'event' || choice === 'segment' || choice === 'email.' ? rest : '', operator, valueType, value: value === undefined ? '' : String(value), unit: (filter.unit as Unit) ?? 'days' }
  const types = valueTypesOf(draft)
  return types.length === 0 || types.includes(valueType) ? draft : { ...draft, valueType: types[0]! }
}

export function fromCondition(condition: Condition): DraftCondition {
  return {
    logic: condition.logic,
    groups: condition.groups.map((group) => ({ key: nextKey(), filters: group.filters.map(fromFilter), nested: group.conditions ? fromCondition(group.conditions) : null })),
  }
}

/** The API's path of a node: `condition.groups[0].filters[1]`, `condition.groups[0].conditions`. */
export const groupPath = (conditionPath: string, i: number) => `${conditionPath}.groups[${i}]`
export const filterPath = (groupAt: string, j: number) => `${groupAt}.filters[${j}]`

/**
 * The messages of `problems` that belong beside the node at `path`: those naming it or a part of
 * it (`.operator`, `.value`), but not a node inside a nested part (`.filters[0]` of a group, `.groups[0]` of a condition).
 */
export function problemsAt(problems: readonly { field: string; message: string }[], path: string, own: readonly string[] = []): string[] {
  return problems.filter((p) => p.field === path || own.some((part) => p.field === `${path}.${part}`) || (own.length === 0 && p.field.startsWith(`${path}.`))).map((p) => p.message)
}

/** The count in words: "1 member", "1,234 members". */
export const membersText = (count: number) => `${count.toLocaleString('en-US')} ${count === 1 ? 'member' : 'members'}`

/** The roles that may change segments (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
export const mayEditSegments = (role: string) => role !== 'viewer'

/** Replaces the item at `i`. */
export const replaceAt = <T>(items: readonly T[], i: number, item: T) => items.map((old, j) => (j === i ? item : old))
export const removeAt = <T>(items: readonly T[], i: number) => items.filter((_, j) => j !== i)
