import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { checkCondition, forEachFilter, segmentRefs } from './condition.ts'
import { parseDate } from './fields.ts'

const one = (filter: unknown) => ({ logic: 'AND', groups: [{ filters: [filter] }] })
const at = (filter: string) => `condition.groups[0].filters[0].${filter}`

/** The field the 422 names, and its message. */
function refusal(input: unknown, field?: string): { field: string; message: string } {
  try {
    checkCondition(input, field)
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).status).toBe(422)
    return (error as AppError).details.errors![0]!
  }
  throw new Error('accepted')
}

const nested = (depth: number): unknown => (depth === 1 ? one({ field: 'email', operator: 'contains', value: 'a' }) : { logic: 'OR', groups: [{ filters: [], conditions: nested(depth - 1) }] })

describe('checkCondition refuses a bad tree with a 422 naming the bad node', () => {
  test.each([
    ['a string', 'AND', 'condition', 'must be an object'],
    ['an array', [], 'condition', 'must be an object'],
    ['null', null, 'condition', 'must be an object'],
    ['an unknown key', { logic: 'AND', groups: [], where: 1 }, 'condition.where', 'is not part of'],
    ['a missing logic', { groups: [] }, 'condition.logic', 'AND or OR'],
    ['a lower-case logic', { logic: 'and', groups: [] }, 'condition.logic', 'AND or OR'],
    ['missing groups', { logic: 'AND' }, 'condition.groups', 'list of 1 to 20'],
    ['no groups', { logic: 'AND', groups: [] }, 'condition.groups', 'list of 1 to 20'],
    ['too many groups', { logic: 'OR', groups: Array.from({ length: 21 }, () => ({ filters: [] })) }, 'condition.groups', 'list of 1 to 20'],
    ['a group that is not an object', { logic: 'AND', groups: ['x'] }, 'condition.groups[0]', 'must be an object'],
    ['an empty group', { logic: 'AND', groups: [{ filters: [] }] }, 'condition.groups[0]', 'at least one filter'],
    ['filters that are not a list', { logic: 'AND', groups: [{ filters: {} }] }, 'condition.groups[0].filters', 'list of 0 to 50'],
    ['too many filters in a group', { logic: 'AND', groups: [{ filters: Array.from({ length: 51 }, () => ({})) }] }, 'condition.groups[0].filters', 'list of 0 to 50'],
    ['a filter that is not an object', one(7), 'condition.groups[0].filters[0]', 'must be an object'],
    ['an unknown filter key', one({ field: 'email.opened', operator: 'triggered', templateId: 't' }), at('templateId'), 'is not part of'],
    ['a missing field', one({ operator: 'equals', value: 'x' }), at('field'), 'must be email, subscribed'],
    ['an unknown field', one({ field: 'name', operator: 'equals', value: 'x' }), at('field'), 'must be email, subscribed'],
    ['data alone', one({ field: 'data', operator: 'exists' }), at('field'), 'must be email, subscribed'],
    ['event alone', one({ field: 'event', operator: 'triggered' }), at('field'), 'must be email, subscribed'],
    ['data without a key', one({ field: 'data.', operator: 'exists' }), at('field'), 'needs a key'],
    ['data with an empty nested key', one({ field: 'data.a..b', operator: 'exists' }), at('field'), 'needs a key'],
    ['data with a double quote in the key', one({ field: 'data.a"b', operator: 'exists' }), at('field'), 'double quotes'],
    ['an unknown mail activity', one({ field: 'email.sent', operator: 'triggered' }), at('field'), 'delivered, opened, clicked, bounced, complained'],
    ['an event without a name', one({ field: 'event.', operator: 'triggered' }), at('field'), 'event name'],
    ['a segment without an id', one({ field: 'segment.', operator: 'memberOfSegment' }), at('field'), 'id of a segment'],
    ['segment without its id as the value', one({ field: 'segment', operator: 'memberOfSegment' }), at('value'), 'id of a segment'],
    ['an unknown operator', one({ field: 'email', operator: 'like', value: 'x' }), at('operator'), 'must be one of equals'],
    ['a missing operator', one({ field: 'email', value: 'x' }), at('operator'), 'must be one of equals'],
    ['gt on email', one({ field: 'email', operator: 'gt', value: 'x' }), at('operator'), 'gt does not apply to email'],
    ['contains on subscribed', one({ field: 'subscribed', operator: 'contains', value: true }), at('operator'), 'does not apply to subscribed'],
    ['equals on createdAt', one({ field: 'createdAt', operator: 'equals', value: '2026-11-01' }), at('operator'), 'does not apply to createdAt'],
    ['equals on an event', one({ field: 'event.signup', operator: 'equals', value: 1 }), at('operator'), 'use triggered, notTriggered, triggeredWithin'],
    ['triggered on data', one({ field: 'data.plan', operator: 'triggered' }), at('operator'), 'does not apply to data.plan'],
    ['equals on a segment', one({ field: 'segment.s1', operator: 'equals', value: 's1' }), at('operator'), 'use memberOfSegment, notMemberOfSegment'],
    ['a number for email', one({ field: 'email', operator: 'equals', value: 5 }), at('value'), 'must be a string'],
    ['a string for subscribed', one({ field: 'subscribed', operator: 'equals', value: 'true' }), at('value'), 'true or false'],
    ['an object for data', one({ field: 'data.plan', operator: 'equals', value: {} }), at('value'), 'a string (at most 1000 characters), a number or a boolean'],
    ['a list for data', one({ field: 'data.plan', operator: 'contains', value: ['a'] }), at('value'), 'a number or a boolean'],
    ['null for data', one({ field: 'data.plan', operator: 'equals', value: null }), at('value'), 'a number or a boolean'],
    ['an over-long string', one({ field: 'data.plan', operator: 'equals', value: 'x'.repeat(1001) }), at('value'), 'at most 1000'],
    ['a number for startsWith', one({ field: 'data.plan', operator: 'startsWith', value: 5 }), at('value'), 'must be a string'],
    ['words for gt', one({ field: 'data.age', operator: 'gt', value: 'thirty' }), at('value'), 'a number or an ISO 8601 date'],
    ['an impossible date', one({ field: 'data.signup', operator: 'gt', value: '2026-13-01' }), at('value'), 'ISO 8601'],
    ['a number for createdAt', one({ field: 'createdAt', operator: 'gt', value: 1_700_000_000_000 }), at('value'), 'ISO 8601 date'],
    ['a value for exists', one({ field: 'data.plan', operator: 'exists', value: 'x' }), at('value'), 'takes no value'],
    ['a value for triggered', one({ field: 'event.signup', operator: 'triggered', value: 1 }), at('value'), 'takes no value'],
    ['within without a unit', one({ field: 'createdAt', operator: 'within', value: 7 }), at('unit'), 'is required: minutes, hours, days, weeks'],
    ['within with an unknown unit', one({ field: 'createdAt', operator: 'within', value: 7, unit: 'years' }), at('unit'), 'is required'],
    ['within without a value', one({ field: 'createdAt', operator: 'within', unit: 'days' }), at('value'), 'positive number'],
    ['within a negative span', one({ field: 'createdAt', operator: 'within', value: -1, unit: 'days' }), at('value'), 'positive number'],
    ['within zero', one({ field: 'data.signup', operator: 'olderThan', value: 0, unit: 'days' }), at('value'), 'positive number'],
    ['within a numeric string', one({ field: 'event.signup', operator: 'triggeredWithin', value: '7', unit: 'days' }), at('value'), 'positive number'],
    ['within two centuries', one({ field: 'createdAt', operator: 'within', value: 20_000, unit: 'weeks' }), at('value'), 'hundred years'],
    ['a unit on equals', one({ field: 'data.plan', operator: 'equals', value: 'x', unit: 'days' }), at('unit'), 'only within, olderThan and triggeredWithin'],
    [
      'a bad unit deep down',
      {
        logic: 'AND',
        groups: [
          {
            filters: [],
            conditions: {
              logic: 'OR',
              groups: [
                {
                  filters: [
                    { field: 'email', operator: 'contains', value: 'a' },
                    { field: 'email', operator: 'contains', value: 'b' },
                    { field: 'createdAt', operator: 'within', value: 1, unit: 'day' },
                  ],
                },
              ],
            },
          },
        ],
      },
      'condition.groups[0].conditions.groups[0].filters[2].unit',
      'is required',
    ],
    [
      'a bad operator in the second group',
      { logic: 'OR', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'a' }] }, { filters: [{ field: 'email', operator: 'nope' }] }] },
      'condition.groups[1].filters[0].operator',
      'must be one of',
    ],
    ['a nested condition that is not an object', { logic: 'AND', groups: [{ filters: [], conditions: 'x' }] }, 'condition.groups[0].conditions', 'must be an object'],
  ])('%s', (_, input, field, message) => {
    const error = refusal(input)
    expect(error.field).toBe(field)
    expect(error.message).toContain(message)
  })

  test('names the path under the field it is given', () => {
    expect(refusal({ logic: 'XOR', groups: [] }, 'audienceCondition').field).toBe('audienceCondition.logic')
  })

  test('ten levels of nesting are accepted, eleven are refused at the eleventh', () => {
    expect(() => checkCondition(nested(10))).not.toThrow()
    const error = refusal(nested(11))
    expect(error.field).toBe('condition' + '.groups[0].conditions'.repeat(10))
    expect(error.message).toContain('at most 10 levels')
  })

  test('a hundred levels of nesting are a clear 422, not a crash', () => {
    expect(refusal(nested(100)).message).toContain('at most 10 levels')
  })

  test('more than 200 filters in all are refused at the first one too many', () => {
    const filter = { field: 'email', operator: 'contains', value: 'a' }
    const input = { logic: 'OR', groups: Array.from({ length: 5 }, () => ({ filters: Array.from({ length: 41 }, () => filter) })) }
    const error = refusal(input)
    expect(error.field).toBe('condition.groups[4].filters[36]')
    expect(error.message).toContain('at most 200 filters')
  })
})

describe('checkCondition normalizes what it accepts', () => {
  test("Plunk's operator names become the short ones", () => {
    const names = ['greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual']
    const checked = checkCondition({ logic: 'AND', groups: [{ filters: names.map((operator) => ({ field: 'data.age', operator, value: 3 })) }] })
    expect(checked.groups[0]!.filters.map((f) => f.operator)).toEqual(['gt', 'gte', 'lt', 'lte'])
  })

  test('a segment named in the value moves into the field', () => {
    expect(checkCondition(one({ field: 'segment', operator: 'notMemberOfSegment', value: 'abc' }))).toEqual(one({ field: 'segment.abc', operator: 'notMemberOfSegment' }) as any)
  })

  test('null conditions, null units and null values of operators without one are dropped', () => {
    const input = { logic: 'OR', groups: [{ filters: [{ field: 'data.plan', operator: 'exists', value: null, unit: null }], conditions: null }] }
    expect(checkCondition(input)).toEqual({ logic: 'OR', groups: [{ filters: [{ field: 'data.plan', operator: 'exists' }] }] })
  })

  test('a group with only a nested condition gets an empty list of filters', () => {
    const inner = one({ field: 'subscribed', operator: 'equals', value: false })
    expect(checkCondition({ logic: 'AND', groups: [{ conditions: inner }] })).toEqual({ logic: 'AND', groups: [{ filters: [], conditions: inner as any }] })
  })

  test('values of every accepted kind are kept as given', () => {
    const filters = [
      { field: 'email', operator: 'endsWith', value: '@example.com' },
      { field: 'subscribed', operator: 'notEquals', value: false },
      { field: 'createdAt', operator: 'lte', value: '2026-11-01T12:00:00+02:00' },
      { field: 'updatedAt', operator: 'olderThan', value: 1.5, unit: 'hours' },
      { field: 'data.plan', operator: 'equals', value: '' },
      { field: 'data.age', operator: 'gte', value: -3.5 },
      { field: 'data.signup', operator: 'lt', value: '2026-11-01' },
      { field: 'data.tags', operator: 'contains', value: true },
      { field: 'data.a.b.c', operator: 'notExists' },
      { field: 'event.order.completed', operator: 'triggeredWithin', value: 2, unit: 'weeks' },
      { field: 'event.segment.s1.entry', operator: 'triggered' },
      { field: 'email.complained', operator: 'notTriggered' },
      { field: 'segment.s1', operator: 'memberOfSegment' },
    ]
    expect(checkCondition({ logic: 'AND', groups: [{ filters }] })).toEqual({ logic: 'AND', groups: [{ filters }] } as any)
  })

  test('the answer is a copy: changing the input later changes nothing', () => {
    const input = one({ field: 'email', operator: 'contains', value: 'a' }) as any
    const checked = checkCondition(input)
    input.groups[0].filters[0].value = 'b'
    expect(checked.groups[0]!.filters[0]!.value).toBe('a')
  })
})

describe('walking a condition', () => {
  const condition = checkCondition({
    logic: 'OR',
    groups: [
      { filters: [{ field: 'segment.a', operator: 'memberOfSegment' }, { field: 'email', operator: 'contains', value: 'x' }] },
      { filters: [{ field: 'segment.b', operator: 'notMemberOfSegment' }], conditions: one({ field: 'segment.a', operator: 'memberOfSegment' }) },
    ],
  })

  test('segmentRefs names each segment once, nested ones too', () => {
    expect(segmentRefs(condition)).toEqual(['a', 'b'])
  })

  test('forEachFilter gives every filter with its path', () => {
    const paths: string[] = []
    forEachFilter(condition, (_, path) => paths.push(path))
    expect(paths).toEqual([
      'condition.groups[0].filters[0]',
      'condition.groups[0].filters[1]',
      'condition.groups[1].filters[0]',
      'condition.groups[1].conditions.groups[0].filters[0]',
    ])
  })
})

describe('parseDate', () => {
  test.each([
    ['2026-11-01', Date.UTC(2026, 10, 1)],
    ['2026-11-01T12:30', Date.UTC(2026, 10, 1, 12, 30)],
    ['2026-11-01T12:30:15Z', Date.UTC(2026, 10, 1, 12, 30, 15)],
    ['2026-11-01T12:30:15.5Z', Date.UTC(2026, 10, 1, 12, 30, 15, 500)],
    ['2026-11-01T12:30:15.123456Z', Date.UTC(2026, 10, 1, 12, 30, 15, 123)],
    ['2026-11-01T12:30:15+02:00', Date.UTC(2026, 10, 1, 10, 30, 15)],
    ['2026-11-01T00:30:00-01:30', Date.UTC(2026, 10, 1, 2, 0)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
  ])('reads %s', (text, ms) => {
    expect(parseDate(text)).toBe(ms)
  })

  test.each(['2026-02-29', '2026-13-01', '2026-11-31', '2026-11-01T24:00', '2026-11-01T12:60', 'Nov 1 2026', '1730000000', '2026-11-01 12:00', '', '2026-11-01T12:00:00+2'])(
    'refuses %j',
    (text) => {
      expect(parseDate(text)).toBeUndefined()
    },
  )
})
