import { describe, expect, test } from 'bun:test'
import * as server from '../../core/segments/fields.ts'
import {
  ACTIVITIES,
  fromCondition,
  newFilter,
  OPERATORS,
  operatorsFor,
  problemsAt,
  RULES,
  toCondition,
  UNITS,
  valueTypesOf,
  withChoice,
  withOperator,
  withValueType,
  type Condition,
} from './segment-builder.ts'

describe('the rules mirror the server', () => {
  test('operators, units, activities and what each operator takes on each kind of field are those of src/core/segments/fields.ts', () => {
    expect(RULES).toEqual(server.RULES)
    expect([...OPERATORS]).toEqual([...server.OPERATORS])
    expect([...UNITS] as string[]).toEqual(Object.keys(server.UNIT_MS))
    expect([...ACTIVITIES]).toEqual([...server.ACTIVITIES])
  })
})

describe('editing a filter', () => {
  test('another field keeps the operator where it applies, else takes the field\'s first; the value follows the operator', () => {
    const email = { ...newFilter('email'), operator: 'contains' as const, value: 'shop' }
    const data = withChoice(email, 'data')
    expect([data.operator, data.value, data.valueType]).toEqual(['contains', 'shop', 'text'])
    const event = withChoice(data, 'event')
    expect(event.operator).toBe('triggered')
    expect(valueTypesOf(event)).toEqual([])
    const within = withOperator(event, 'triggeredWithin')
    expect([within.valueType, within.value, within.unit]).toEqual(['number', '', 'days'])
    expect(withChoice(email, 'email.').name).toBe('delivered')
    expect(operatorsFor('subscribed')).toEqual(['equals', 'notEquals'])
    expect(withChoice(email, 'subscribed')).toMatchObject({ operator: 'equals', valueType: 'boolean', value: 'true' })
  })

  test('a scalar value may be text, a number or a boolean; an order value a number or a date', () => {
    const plan = withChoice(newFilter(), 'data')
    expect(valueTypesOf(plan)).toEqual(['text', 'number', 'boolean'])
    expect(valueTypesOf(withOperator(plan, 'gt'))).toEqual(['number', 'date'])
    expect(withValueType({ ...plan, value: 'pro' }, 'boolean').value).toBe('true')
  })
})

describe('the condition sent and read back', () => {
  const condition: Condition = {
    logic: 'OR',
    groups: [
      {
        filters: [
          { field: 'event.signup', operator: 'triggeredWithin', value: 7, unit: 'days' },
          { field: 'data.plan', operator: 'equals', value: 'pro' },
          { field: 'data.seats', operator: 'gte', value: 3 },
          { field: 'data.vip', operator: 'equals', value: true },
          { field: 'data.renewal', operator: 'lt', value: '2026-12-01' },
          { field: 'createdAt', operator: 'olderThan', value: 2, unit: 'weeks' },
        ],
      },
      {
        filters: [{ field: 'subscribed', operator: 'equals', value: false }],
        conditions: { logic: 'AND', groups: [{ filters: [{ field: 'email.opened', operator: 'triggered' }, { field: 'segment.01abc', operator: 'notMemberOfSegment' }] }] },
      },
    ],
  }

  test('a stored condition comes back as it was after a round trip through the form', () => {
    expect(toCondition(fromCondition(condition))).toEqual(condition)
  })

  test('Plunk\'s operator names are read as the short ones', () => {
    const read = fromCondition({ logic: 'AND', groups: [{ filters: [{ field: 'data.age', operator: 'greaterThan', value: 30 }] }] })
    expect(toCondition(read).groups[0]!.filters[0]).toEqual({ field: 'data.age', operator: 'gt', value: 30 })
  })

  test('a number typed badly is sent as typed, for the server to name', () => {
    const filter = { ...withOperator(withChoice(newFilter(), 'event'), 'triggeredWithin'), name: 'signup', value: 'seven' }
    expect(toCondition({ logic: 'AND', groups: [{ key: 'g', filters: [filter], nested: null }] }).groups[0]!.filters[0]).toEqual({ field: 'event.signup', operator: 'triggeredWithin', value: 'seven', unit: 'days' })
  })
})

describe('server errors beside the node they name', () => {
  const problems = [
    { field: 'condition.groups[0].filters[1].operator', message: 'bad operator' },
    { field: 'condition.groups[0].filters[10].value', message: 'bad value' },
    { field: 'condition.groups[0]', message: 'empty group' },
    { field: 'condition.groups[0].conditions.groups[0].filters[0].unit', message: 'bad unit' },
    { field: 'condition.logic', message: 'bad logic' },
  ]
  test('a filter gets its own, not another filter\'s whose index starts alike; a group and a condition their own only', () => {
    expect(problemsAt(problems, 'condition.groups[0].filters[1]')).toEqual(['bad operator'])
    expect(problemsAt(problems, 'condition.groups[0]', ['filters'])).toEqual(['empty group'])
    expect(problemsAt(problems, 'condition', ['logic', 'groups'])).toEqual(['bad logic'])
    expect(problemsAt(problems, 'condition.groups[0].conditions.groups[0].filters[0]')).toEqual(['bad unit'])
  })
})
