// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { dialectOf, type Database } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import { AppError } from '../../lib/errors.ts'
import { DAY, HOUR, insertContacts, insertEmail, insertEvent, MINUTE, NOW, openProjectDb } from '../../../test/helpers/segments.ts'
import { compileCondition, isTimeBased, type CompileContext } from './compile.ts'
import { checkCondition, type Condition } from './condition.ts'
import { nextUp } from './predicates.ts'

let database: Database
let db: Db
let projectId: number
const ids: Record<string, string> = {}
const segments: CompileContext['segments'] = new Map()

const one = (filter: object): unknown => ({ logic: 'AND', groups: [{ filters: [filter] }] })
const condition = (input: unknown) => checkCondition(input)
const context = (now = NOW): CompileContext => ({ dialect: dialectOf(db), projectId, now, segments })

/** The names (the part before @) of the contacts the condition matches, sorted. */
async function members(input: unknown, now = NOW): Promise<string[]> {
  const rows = await db
    .selectFrom('contacts as c')
    .select('c.email')
    .where('c.project_id', '=', projectId)
    .where(compileCondition(condition(input), context(now)))
    .execute()
  return rows.map((row) => row.email.split('@')[0]!.toLowerCase()).sort()
}

beforeAll(async () => {
  ;({ database, db, projectId } = await openProjectDb())
  const [ada, bob, cy, dee, eve] = await insertContacts(db, projectId, [
    {
      email: 'Ada@Example.com',
      createdAt: NOW - HOUR,
      data: { plan: 'pro', age: 36, tags: ['vip', 'Beta'], signup: '2026-10-30T12:00:00Z', address: { city: 'London' }, active: true, score: 1, 'home town': 'Bath' },
    },
    {
      email: 'bob@example.org',
      createdAt: NOW - 3 * DAY,
      updatedAt: NOW - DAY,
      data: { plan: 'Free', age: 30, tags: ['alpha'], signup: '2026-01-01', address: { city: 'Paris' }, active: false, score: 0, 'x[0]': 'y' },
    },
    { email: 'cy@example.com', subscribed: false, createdAt: NOW - 10 * DAY, data: { plan: 'PRO', age: '40', tags: [1, 2, true], nickname: '[x]', notes: 'likes 100%_stuff' } },
    { email: 'dee@example.net', createdAt: NOW - 60 * DAY },
    { email: 'eve@sub.example.com', createdAt: NOW - MINUTE, data: { plan: 'enterprise', age: 29.5, signup: 12345, active: 1, address: { city: 'london' }, list: { a: 1 }, score: 1.5 } },
  ])
  Object.assign(ids, { ada, bob, cy, dee, eve })
  await insertEvent(db, projectId, ada!, 'signup', NOW - HOUR)
  await insertEvent(db, projectId, bob!, 'signup', NOW - 30 * DAY)
  await insertEvent(db, projectId, bob!, 'purchase', NOW - 2 * DAY)
  await insertEvent(db, projectId, cy!, 'purchase', NOW - 10 * MINUTE)
  await insertEmail(db, projectId, ada!, [['DELIVERED', NOW - 2 * DAY], ['OPENED', NOW - HOUR]])
  await insertEmail(db, projectId, bob!, [['DELIVERED', NOW - 20 * DAY], ['BOUNCED', NOW - 20 * DAY]])
  await insertEmail(db, projectId, eve!, [['QUEUED', NOW - MINUTE]])
  await db
    .insertInto('segments')
    .values({ id: 'vips', project_id: projectId, name: 'VIPs', description: null, type: 'STATIC', condition: null, meta: null, created_at: NOW, updated_at: NOW })
    .execute()
  await db.insertInto('segment_members').values([ada!, cy!].map((id) => ({ segment_id: 'vips', contact_id: id, created_at: NOW }))).execute()
  segments.set('vips', { type: 'STATIC', condition: null })
  segments.set('pros', { type: 'DYNAMIC', condition: condition(one({ field: 'data.plan', operator: 'equals', value: 'pro' })) })
  segments.set('recent', { type: 'DYNAMIC', condition: condition(one({ field: 'createdAt', operator: 'within', value: 7, unit: 'days' })) })
  segments.set('over30', { type: 'DYNAMIC', condition: condition(one({ field: 'data.age', operator: 'gt', value: 30 })) })
  segments.set('pro-vips', {
    type: 'DYNAMIC',
    condition: condition({ logic: 'AND', groups: [{ filters: [{ field: 'segment.pros', operator: 'memberOfSegment' }, { field: 'segment.vips', operator: 'memberOfSegment' }] }] }),
  })
})

afterAll(() => database.close())

type Case = [string, object, string[]]

const table = (cases: Case[]) =>
  test.each(cases)('%s', async (_, filter, expected) => {
    expect(await members(one(filter))).toEqual(expected)
  })

describe('email', () => {
  table([
    ['equals ignores ASCII case', { field: 'email', operator: 'equals', value: 'ada@EXAMPLE.com' }, ['ada']],
    ['notEquals is everyone else', { field: 'email', operator: 'notEquals', value: 'ada@example.com' }, ['bob', 'cy', 'dee', 'eve']],
    ['contains is a substring, any case', { field: 'email', operator: 'contains', value: 'EXAMPLE.COM' }, ['ada', 'cy', 'eve']],
    ['notContains', { field: 'email', operator: 'notContains', value: 'example.com' }, ['bob', 'dee']],
    ['startsWith', { field: 'email', operator: 'startsWith', value: 'B' }, ['bob']],
    ['endsWith', { field: 'email', operator: 'endsWith', value: '.NET' }, ['dee']],
    ['% in the value is a plain character', { field: 'email', operator: 'contains', value: '%' }, []],
    ['_ in the value is a plain character', { field: 'email', operator: 'startsWith', value: '_' }, []],
  ])
})

describe('subscribed', () => {
  table([
    ['equals true', { field: 'subscribed', operator: 'equals', value: true }, ['ada', 'bob', 'dee', 'eve']],
    ['equals false', { field: 'subscribed', operator: 'equals', value: false }, ['cy']],
    ['notEquals true', { field: 'subscribed', operator: 'notEquals', value: true }, ['cy']],
    ['notEquals false', { field: 'subscribed', operator: 'notEquals', value: false }, ['ada', 'bob', 'dee', 'eve']],
  ])
})

describe('createdAt and updatedAt', () => {
  const adaCreated = new Date(NOW - HOUR).toISOString()
  table([
    ['within counts back from now', { field: 'createdAt', operator: 'within', value: 2, unit: 'hours' }, ['ada', 'eve']],
    ['within days', { field: 'createdAt', operator: 'within', value: 7, unit: 'days' }, ['ada', 'bob', 'eve']],
    ['within weeks', { field: 'createdAt', operator: 'within', value: 2, unit: 'weeks' }, ['ada', 'bob', 'cy', 'eve']],
    ['within minutes', { field: 'createdAt', operator: 'within', value: 5, unit: 'minutes' }, ['eve']],
    ['olderThan', { field: 'createdAt', operator: 'olderThan', value: 7, unit: 'days' }, ['cy', 'dee']],
    ['gt a date', { field: 'createdAt', operator: 'gt', value: '2026-10-25' }, ['ada', 'bob', 'eve']],
    ['lt a date', { field: 'createdAt', operator: 'lt', value: '2026-10-25' }, ['cy', 'dee']],
    ['gte an instant includes it', { field: 'createdAt', operator: 'gte', value: adaCreated }, ['ada', 'eve']],
    ['gt an instant excludes it', { field: 'createdAt', operator: 'gt', value: adaCreated }, ['eve']],
    ['lte an instant includes it', { field: 'createdAt', operator: 'lte', value: adaCreated }, ['ada', 'bob', 'cy', 'dee']],
    ['a zone offset is honoured', { field: 'createdAt', operator: 'gte', value: '2026-11-01T12:00:00+01:00' }, ['ada', 'eve']],
    ['updatedAt within', { field: 'updatedAt', operator: 'within', value: 2, unit: 'days' }, ['ada', 'bob', 'eve']],
    ['updatedAt olderThan', { field: 'updatedAt', operator: 'olderThan', value: 2, unit: 'days' }, ['cy', 'dee']],
  ])

  test('within is counted from the context’s now, not from the database clock', async () => {
    const filter = one({ field: 'createdAt', operator: 'within', value: 2, unit: 'hours' })
    expect(await members(filter, NOW + 90 * MINUTE)).toEqual(['eve'])
    expect(await members(filter, NOW + 3 * HOUR)).toEqual([])
  })
})

describe('data: text', () => {
  table([
    ['equals ignores case', { field: 'data.plan', operator: 'equals', value: 'pro' }, ['ada', 'cy']],
    ['equals in capitals', { field: 'data.plan', operator: 'equals', value: 'PRO' }, ['ada', 'cy']],
    ['notEquals includes contacts without the key', { field: 'data.plan', operator: 'notEquals', value: 'pro' }, ['bob', 'dee', 'eve']],
    ['contains', { field: 'data.plan', operator: 'contains', value: 'RO' }, ['ada', 'cy']],
    ['notContains includes contacts without the key', { field: 'data.plan', operator: 'notContains', value: 'ro' }, ['bob', 'dee', 'eve']],
    ['startsWith', { field: 'data.plan', operator: 'startsWith', value: 'P' }, ['ada', 'cy']],
    ['endsWith', { field: 'data.plan', operator: 'endsWith', value: 'EE' }, ['bob']],
    ['startsWith looks at strings only, not numbers', { field: 'data.age', operator: 'startsWith', value: '3' }, []],
    ['LIKE wildcards in the value are plain characters', { field: 'data.notes', operator: 'contains', value: '%s' }, []],
    ['... and match themselves', { field: 'data.notes', operator: 'contains', value: '0%_S' }, ['cy']],
    ['a value that looks like JSON equals the string', { field: 'data.nickname', operator: 'equals', value: '[x]' }, ['cy']],
    ['an array never equals its JSON text', { field: 'data.tags', operator: 'equals', value: '["vip","Beta"]' }, []],
    ['a number never equals a string', { field: 'data.age', operator: 'equals', value: '36' }, []],
    ['a string equals its own text', { field: 'data.age', operator: 'equals', value: '40' }, ['cy']],
    ['a key with a space', { field: 'data.home town', operator: 'equals', value: 'bath' }, ['ada']],
    ['a key with brackets is a key, not an index', { field: 'data.x[0]', operator: 'equals', value: 'Y' }, ['bob']],
  ])
})

describe('data: numbers', () => {
  table([
    ['equals', { field: 'data.age', operator: 'equals', value: 36 }, ['ada']],
    ['equals a number never matches a numeric string', { field: 'data.age', operator: 'equals', value: 40 }, []],
    ['notEquals includes strings and missing keys', { field: 'data.age', operator: 'notEquals', value: 36 }, ['bob', 'cy', 'dee', 'eve']],
    ['gt excludes the bound', { field: 'data.age', operator: 'gt', value: 30 }, ['ada']],
    ['gte includes the bound', { field: 'data.age', operator: 'gte', value: 30 }, ['ada', 'bob']],
    ['lt', { field: 'data.age', operator: 'lt', value: 30 }, ['eve']],
    ['lte', { field: 'data.age', operator: 'lte', value: 30 }, ['bob', 'eve']],
    ['gt a fraction', { field: 'data.age', operator: 'gt', value: 29.4 }, ['ada', 'bob', 'eve']],
    ['equals 1 is not true', { field: 'data.active', operator: 'equals', value: 1 }, ['eve']],
    ['gt 0 leaves booleans out', { field: 'data.active', operator: 'gt', value: 0 }, ['eve']],
    ['lt 1 leaves false out', { field: 'data.active', operator: 'lt', value: 1 }, []],
    ['gte 0 over numbers', { field: 'data.score', operator: 'gte', value: 0 }, ['ada', 'bob', 'eve']],
    ['lt 1 over numbers', { field: 'data.score', operator: 'lt', value: 1 }, ['bob']],
    ['gt 1 over numbers', { field: 'data.score', operator: 'gt', value: 1 }, ['eve']],
    ['notEquals 1 keeps true', { field: 'data.active', operator: 'notEquals', value: 1 }, ['ada', 'bob', 'cy', 'dee']],
  ])

  test('strict bounds use the neighbouring double', () => {
    expect(nextUp(30)).toBeGreaterThan(30)
    expect((30 + nextUp(30)) / 2).toBe(30)
    expect(nextUp(0)).toBe(Number.MIN_VALUE)
    expect(-nextUp(-1)).toBeLessThan(1)
    expect(nextUp(-Number.MIN_VALUE)).toBe(-0)
  })
})

describe('data: booleans', () => {
  table([
    ['equals true', { field: 'data.active', operator: 'equals', value: true }, ['ada']],
    ['equals false', { field: 'data.active', operator: 'equals', value: false }, ['bob']],
    ['notEquals true includes numbers and missing keys', { field: 'data.active', operator: 'notEquals', value: true }, ['bob', 'cy', 'dee', 'eve']],
  ])
})

describe('data: dates', () => {
  table([
    ['gt a date', { field: 'data.signup', operator: 'gt', value: '2026-06-01' }, ['ada']],
    ['lt a date leaves numbers out (not Julian days)', { field: 'data.signup', operator: 'lt', value: '2026-06-01' }, ['bob']],
    ['lte the same day', { field: 'data.signup', operator: 'lte', value: '2026-01-01' }, ['bob']],
    ['gte the same instant', { field: 'data.signup', operator: 'gte', value: '2026-10-30T12:00:00Z' }, ['ada']],
    ['gt the same instant', { field: 'data.signup', operator: 'gt', value: '2026-10-30T12:00:00.000Z' }, []],
    ['within', { field: 'data.signup', operator: 'within', value: 7, unit: 'days' }, ['ada']],
    ['within a day', { field: 'data.signup', operator: 'within', value: 1, unit: 'days' }, []],
    ['olderThan', { field: 'data.signup', operator: 'olderThan', value: 7, unit: 'days' }, ['bob']],
    ['a number compares with a number, not a date', { field: 'data.signup', operator: 'gt', value: 100 }, ['eve']],
  ])
})

describe('data: missing keys, nested keys, arrays', () => {
  table([
    ['exists', { field: 'data.plan', operator: 'exists' }, ['ada', 'bob', 'cy', 'eve']],
    ['notExists', { field: 'data.plan', operator: 'notExists' }, ['dee']],
    ['exists on an object', { field: 'data.address', operator: 'exists' }, ['ada', 'bob', 'eve']],
    ['exists on a nested key', { field: 'data.address.city', operator: 'exists' }, ['ada', 'bob', 'eve']],
    ['equals on a nested key', { field: 'data.address.city', operator: 'equals', value: 'LONDON' }, ['ada', 'eve']],
    ['notEquals on a nested key', { field: 'data.address.city', operator: 'notEquals', value: 'london' }, ['bob', 'cy', 'dee']],
    ['a number on a nested key', { field: 'data.list.a', operator: 'equals', value: 1 }, ['eve']],
    ['contains an element, any case', { field: 'data.tags', operator: 'contains', value: 'VIP' }, ['ada']],
    ['contains needs the whole element', { field: 'data.tags', operator: 'contains', value: 'vi' }, []],
    ['contains a number element', { field: 'data.tags', operator: 'contains', value: 2 }, ['cy']],
    ['contains a boolean element', { field: 'data.tags', operator: 'contains', value: true }, ['cy']],
    ['notContains includes other arrays and missing keys', { field: 'data.tags', operator: 'notContains', value: 'vip' }, ['bob', 'cy', 'dee', 'eve']],
    ['an object contains nothing', { field: 'data.address', operator: 'contains', value: 'London' }, []],
    ['a number contains nothing', { field: 'data.age', operator: 'contains', value: 36 }, []],
  ])
})

describe('events', () => {
  table([
    ['triggered', { field: 'event.signup', operator: 'triggered' }, ['ada', 'bob']],
    ['notTriggered', { field: 'event.signup', operator: 'notTriggered' }, ['cy', 'dee', 'eve']],
    ['triggeredWithin', { field: 'event.signup', operator: 'triggeredWithin', value: 1, unit: 'days' }, ['ada']],
    ['triggeredWithin minutes', { field: 'event.purchase', operator: 'triggeredWithin', value: 30, unit: 'minutes' }, ['cy']],
    ['an event nobody had', { field: 'event.refund', operator: 'triggered' }, []],
  ])
})

describe('mail activity', () => {
  table([
    ['opened', { field: 'email.opened', operator: 'triggered' }, ['ada']],
    ['delivered', { field: 'email.delivered', operator: 'triggered' }, ['ada', 'bob']],
    ['delivered within a week', { field: 'email.delivered', operator: 'triggeredWithin', value: 1, unit: 'weeks' }, ['ada']],
    ['never bounced', { field: 'email.bounced', operator: 'notTriggered' }, ['ada', 'cy', 'dee', 'eve']],
    ['clicked', { field: 'email.clicked', operator: 'triggered' }, []],
    ['complained', { field: 'email.complained', operator: 'triggered' }, []],
  ])
})

describe('segments', () => {
  table([
    ['member of a STATIC segment', { field: 'segment.vips', operator: 'memberOfSegment' }, ['ada', 'cy']],
    ['not member of a STATIC segment', { field: 'segment.vips', operator: 'notMemberOfSegment' }, ['bob', 'dee', 'eve']],
    ['member of a DYNAMIC segment', { field: 'segment.pros', operator: 'memberOfSegment' }, ['ada', 'cy']],
    ['not member of a DYNAMIC segment', { field: 'segment.pros', operator: 'notMemberOfSegment' }, ['bob', 'dee', 'eve']],
    ['not member includes contacts its condition knows nothing of', { field: 'segment.over30', operator: 'notMemberOfSegment' }, ['bob', 'cy', 'dee', 'eve']],
    ['the id may come as the value', { field: 'segment', operator: 'memberOfSegment', value: 'recent' }, ['ada', 'bob', 'eve']],
    ['a segment of segments', { field: 'segment.pro-vips', operator: 'memberOfSegment' }, ['ada', 'cy']],
    ['a segment that is gone has no members', { field: 'segment.gone', operator: 'memberOfSegment' }, []],
    ['... and everyone is outside it', { field: 'segment.gone', operator: 'notMemberOfSegment' }, ['ada', 'bob', 'cy', 'dee', 'eve']],
  ])
})

describe('logic', () => {
  const plan = (value: string) => ({ field: 'data.plan', operator: 'equals', value })
  const subscribed = { field: 'subscribed', operator: 'equals', value: true }

  test.each([
    ['filters in a group must all hold', { logic: 'OR', groups: [{ filters: [plan('pro'), subscribed] }] }, ['ada']],
    ['AND joins groups', { logic: 'AND', groups: [{ filters: [plan('pro')] }, { filters: [subscribed] }] }, ['ada']],
    ['OR joins groups', { logic: 'OR', groups: [{ filters: [plan('pro')] }, { filters: [{ field: 'data.age', operator: 'lt', value: 30 }] }] }, ['ada', 'cy', 'eve']],
    [
      'a nested condition is ANDed with its group',
      {
        logic: 'AND',
        groups: [
          {
            filters: [subscribed],
            conditions: { logic: 'OR', groups: [{ filters: [{ field: 'data.age', operator: 'gt', value: 30 }] }, { filters: [plan('enterprise')] }] },
          },
        ],
      },
      ['ada', 'eve'],
    ],
    [
      'a group may hold only a nested condition',
      { logic: 'OR', groups: [{ filters: [], conditions: { logic: 'AND', groups: [{ filters: [plan('free')] }] } }, { filters: [plan('enterprise')] }] },
      ['bob', 'eve'],
    ],
    [
      'three levels deep',
      {
        logic: 'AND',
        groups: [{ filters: [subscribed], conditions: { logic: 'AND', groups: [{ filters: [], conditions: { logic: 'OR', groups: [{ filters: [plan('free')] }, { filters: [plan('pro')] }] } }] } }],
      },
      ['ada', 'bob'],
    ],
  ])('%s', async (_, input, expected) => {
    expect(await members(input)).toEqual(expected)
  })
})

describe('limits of compiling', () => {
  const ref = (id: string) => ({ field: `segment.${id}`, operator: 'memberOfSegment' })
  const refuse = (input: unknown, map: CompileContext['segments'], message: string) => {
    try {
      compileCondition(condition(input), { ...context(), segments: map })
      throw new Error('compiled')
    } catch (error) {
      expect(error).toBeInstanceOf(AppError)
      expect((error as AppError).status).toBe(422)
      expect((error as AppError).message).toContain(message)
    }
  }

  test('segments that refer to each other in a circle are refused, never looped over', () => {
    const map: CompileContext['segments'] = new Map([
      ['a', { type: 'DYNAMIC', condition: condition(one(ref('b'))) }],
      ['b', { type: 'DYNAMIC', condition: condition(one(ref('a'))) }],
    ])
    refuse(one(ref('a')), map, 'circle')
  })

  test('a chain of references deeper than ten is refused', () => {
    const map: CompileContext['segments'] = new Map()
    for (let i = 0; i < 12; i++) map.set(`s${i}`, { type: 'DYNAMIC', condition: condition(one(i === 11 ? { field: 'email', operator: 'contains', value: 'a' } : ref(`s${i + 1}`))) })
    refuse(one(ref('s0')), map, 'nest at most 10')
  })

  test('references that multiply past a thousand filters are refused', () => {
    const many = (id: string) => ({ logic: 'OR', groups: [{ filters: Array.from({ length: 40 }, () => ref(id)) }] })
    const map: CompileContext['segments'] = new Map([
      ['wide', { type: 'DYNAMIC', condition: condition(many('leaf')) }],
      ['leaf', { type: 'DYNAMIC', condition: condition({ logic: 'OR', groups: [{ filters: Array.from({ length: 40 }, () => ({ field: 'subscribed', operator: 'equals', value: true })) }] }) }],
    ])
    refuse(many('wide'), map, 'more than 1000 filters')
  })
})

describe('isTimeBased', () => {
  const timeBased = (input: unknown) => isTimeBased(condition(input), segments)

  test.each([
    ['a plain comparison is not', { field: 'data.plan', operator: 'equals', value: 'pro' }, false],
    ['an event that happened is not', { field: 'event.signup', operator: 'triggered' }, false],
    ['within is', { field: 'createdAt', operator: 'within', value: 1, unit: 'days' }, true],
    ['olderThan on data is', { field: 'data.signup', operator: 'olderThan', value: 1, unit: 'days' }, true],
    ['triggeredWithin is', { field: 'event.signup', operator: 'triggeredWithin', value: 1, unit: 'days' }, true],
    ['mail activity is', { field: 'email.opened', operator: 'triggered' }, true],
    ['a STATIC segment is not', { field: 'segment.vips', operator: 'memberOfSegment' }, false],
    ['a DYNAMIC segment that is not', { field: 'segment.pros', operator: 'memberOfSegment' }, false],
    ['a DYNAMIC segment that is', { field: 'segment.recent', operator: 'notMemberOfSegment' }, true],
  ])('%s', (_, filter, expected) => {
    expect(timeBased(one(filter))).toBe(expected)
  })

  test('a nested filter counts', () => {
    expect(timeBased({ logic: 'OR', groups: [{ filters: [], conditions: one({ field: 'email.clicked', operator: 'triggered' }) }] })).toBe(true)
  })

  test('segments in a circle end the walk', () => {
    const map: CompileContext['segments'] = new Map([
      ['a', { type: 'DYNAMIC', condition: condition(one({ field: 'segment.b', operator: 'memberOfSegment' })) }],
      ['b', { type: 'DYNAMIC', condition: condition(one({ field: 'segment.a', operator: 'memberOfSegment' })) }],
    ])
    expect(isTimeBased(condition(one({ field: 'segment.a', operator: 'memberOfSegment' })), map)).toBe(false)
  })
})

test('the condition is checked, its JSON paths travel as parameters', () => {
  const compiled = compileCondition(condition(one({ field: "data.x') OR 1=1 --", operator: 'exists' })), context()).compile(db)
  expect(compiled.sql).not.toContain('1=1')
  expect(compiled.parameters).toContain(dialectOf(db) === 'sqlite' ? `$."x') OR 1=1 --"` : "x') OR 1=1 --")
  expect(Object.keys(ids)).toHaveLength(5)
})
