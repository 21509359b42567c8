import { describe, expect, test } from 'bun:test'
import { bulkFilter, conditionOf, filterChips, filtersFromSearch, listQuery, searchOf } from './contact-filters.ts'

describe('the contacts filters in the address', () => {
  test('read back as written, in one order', () => {
    const filters = filtersFromSearch('?segment=s1&search=ada&key=plan&op=equals&value=pro&subscribed=true&sort=email&dir=asc')
    expect(filters).toEqual({ search: 'ada', subscribed: 'true', key: 'plan', op: 'equals', value: 'pro', segment: 's1', sort: 'email', dir: 'asc' })
    expect(searchOf(filters)).toBe('search=ada&subscribed=true&key=plan&op=equals&value=pro&segment=s1&sort=email&dir=asc')
  })

  test('what the API would refuse is left out, and a data filter missing a part is left out whole', () => {
    expect(filtersFromSearch('subscribed=maybe&sort=name&dir=up&op=like&key=plan&value=x')).toEqual({})
    expect(filtersFromSearch('key=plan&op=equals')).toEqual({})
    expect(filtersFromSearch('key=plan&op=exists&value=ignored')).toEqual({ key: 'plan', op: 'exists' })
  })
})

describe('the condition a data field and a segment make', () => {
  test('none without them', () => {
    expect(conditionOf({ search: 'x' })).toBeUndefined()
    expect(listQuery({ search: 'x' })).toEqual({ search: 'x', subscribed: undefined, condition: undefined })
  })

  test('numbers and true/false typed, unless compared as text; a segment is membership', () => {
    expect(conditionOf({ key: 'age', op: 'gte', value: '30', segment: 's1' })).toEqual({
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.age', operator: 'gte', value: 30 }, { field: 'segment.s1', operator: 'memberOfSegment' }] }],
    })
    expect(conditionOf({ key: 'zip', op: 'startsWith', value: '75' })).toEqual({ logic: 'AND', groups: [{ filters: [{ field: 'data.zip', operator: 'startsWith', value: '75' }] }] })
    expect(conditionOf({ key: 'vip', op: 'equals', value: 'true' })).toMatchObject({ groups: [{ filters: [{ value: true }] }] })
    expect(conditionOf({ key: 'vip', op: 'notExists' })).toEqual({ logic: 'AND', groups: [{ filters: [{ field: 'data.vip', operator: 'notExists' }] }] })
  })

  test('a bulk action gets the same filter as a body', () => {
    expect(bulkFilter({ subscribed: 'false', search: 'a', sort: 'email' })).toEqual({ subscribed: false, search: 'a' })
  })
})

test('chips say each filter on and what is left without it', () => {
  const chips = filterChips({ subscribed: 'false', key: 'plan', op: 'equals', value: 'pro', segment: 's1', search: 'a' }, () => 'VIPs')
  expect(chips.map((chip) => chip.label)).toEqual(['Unsubscribed', 'plan is “pro”', 'In VIPs'])
  expect(chips[1]!.without).toEqual({ subscribed: 'false', segment: 's1', search: 'a', key: undefined, op: undefined, value: undefined })
})
