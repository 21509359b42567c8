import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Dialect } from '../../db/client.ts'
import { invalid } from '../../lib/errors.ts'
import { forEachFilter, segmentIdOf, segmentRefs, type Condition, type Filter } from './condition.ts'
import { parseField, TIME_OPERATORS } from './fields.ts'
import * as p from './predicates.ts'

/*
 * The condition compiler: a checked condition becomes one SQL expression over the contacts alias
 * `c`. Pure: it reads nothing, and what it needs to know of other segments comes in the context.
 */

export interface CompileContext {
  /** The SQL is written for this database. */
  dialect: Dialect
  projectId: number
  /** The time that within, olderThan and triggeredWithin count back from. */
  now: number
  /** The project's segments, for the filters that name one. */
  segments: Map<string, { type: 'DYNAMIC' | 'STATIC'; condition: Condition | null }>
}

/**
 * A DYNAMIC segment named in a condition is compiled in place, so chains and fan-outs of
 * references are bounded: the SQL stays small enough to plan and within SQLite's depth limit.
 */
export const COMPILE_LIMITS = { referenceDepth: 10, filters: 1000 } as const

interface State {
  context: CompileContext
  /** The DYNAMIC segments being compiled in place, outermost first. */
  expanding: string[]
  filters: number
}

export function compileCondition(condition: Condition, context: CompileContext): RawBuilder<SqlBool> {
  return compileNode(condition, { context, expanding: [], filters: 0 })
}

function compileNode(condition: Condition, state: State): p.Predicate {
  const groups = condition.groups.map((group) => {
    const parts = group.filters.map((filter) => compileFilter(filter, state))
    if (group.conditions) parts.push(compileNode(group.conditions, state))
    return join(parts, 'AND')
  })
  return join(groups, condition.logic)
}

function join(parts: p.Predicate[], logic: 'AND' | 'OR'): p.Predicate {
  if (parts.length === 0) return logic === 'AND' ? p.TRUE : p.FALSE
  if (parts.length === 1) return parts[0]!
  return sql`(${sql.join(
    parts.map((part) => sql`(${part})`),
    sql.raw(` ${logic} `),
  )})`
}

function compileFilter(filter: Filter, state: State): p.Predicate {
  if (++state.filters > COMPILE_LIMITS.filters) {
    throw invalid('condition', `holds more than ${COMPILE_LIMITS.filters} filters once the segments it names are counted in`)
  }
  const field = parseField(filter.field)
  if (typeof field === 'string') throw invalid('condition', `${filter.field}: ${field}`)
  const { now, dialect } = state.context
  switch (field.kind) {
    case 'email':
      return p.emailPredicate(dialect, filter)
    case 'subscribed':
      return p.subscribedPredicate(filter)
    case 'time':
      return p.timePredicate(field.column, filter, now)
    case 'data':
      return p.dataPredicate(dialect, field.keys, filter, now)
    case 'event':
      return p.eventPredicate(field.name, filter, now)
    case 'activity':
      return p.activityPredicate(field.status, filter, now)
    case 'segment': {
      const member = memberOf(field.id, state)
      return filter.operator === 'memberOfSegment' ? member : p.not(member)
    }
  }
}

/** Membership of a segment: its listed members, or its own condition compiled in place. */
function memberOf(id: string, state: State): p.Predicate {
  const segment = state.context.segments.get(id)
  if (!segment) return p.FALSE
  if (segment.type === 'STATIC' || !segment.condition) {
    return sql`EXISTS (SELECT 1 FROM segment_members AS sm WHERE sm.segment_id = ${id} AND sm.contact_id = c.id)`
  }
  if (state.expanding.includes(id)) throw invalid('condition', 'segments refer to each other in a circle')
  if (state.expanding.length >= COMPILE_LIMITS.referenceDepth) {
    throw invalid('condition', `segments that name segments nest at most ${COMPILE_LIMITS.referenceDepth} deep`)
  }
  state.expanding.push(id)
  try {
    return compileNode(segment.condition, state)
  } finally {
    state.expanding.pop()
  }
}

/**
 * Whether membership can change with time or mail activity alone, with no write to the contact:
 * a time window, an email.* field, or a segment named that is so.
 */
export function isTimeBased(condition: Condition, segments: CompileContext['segments'], seen = new Set<string>()): boolean {
  let timeBased = false
  forEachFilter(condition, (filter) => {
    if (TIME_OPERATORS.has(filter.operator) || filter.field.startsWith('email.')) timeBased = true
    const id = segmentIdOf(filter)
    if (!id || seen.has(id)) return
    seen.add(id)
    const referred = segments.get(id)?.condition
    if (referred && isTimeBased(referred, segments, seen)) timeBased = true
  })
  return timeBased
}

/** Whether the condition of segment `from` names segment `target`, directly or through others. */
export function reaches(segments: CompileContext['segments'], from: string, target: string, seen = new Set<string>()): boolean {
  const condition = segments.get(from)?.condition
  if (!condition || seen.has(from)) return false
  seen.add(from)
  return segmentRefs(condition).some((id) => id === target || reaches(segments, id, target, seen))
}

/** The segments whose membership depends on segment `id`: those that name it, directly or not. */
export const dependentsOf = (segments: CompileContext['segments'], id: string): string[] =>
  [...segments.keys()].filter((other) => other !== id && reaches(segments, other, id))
