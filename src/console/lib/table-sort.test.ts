import { describe, expect, test } from 'bun:test'
import { nextOrder, sortRows } from './table-sort.ts'

const rows = [
  { name: 'item 10', count: 3 },
  { name: 'Item 2', count: 12 },
  { name: '', count: 7 },
  { name: 'item 1', count: 3 },
]

describe('sorting rows in the browser', () => {
  test('numbers by value, both ways; equal values keep their order', () => {
    const byCount = (direction: 'ascending' | 'descending') => sortRows(rows, (r) => r.count, { key: 'count', direction }).map((r) => r.name)
    expect(byCount('ascending')).toEqual(['item 10', 'item 1', '', 'Item 2'])
    expect(byCount('descending')).toEqual(['Item 2', '', 'item 10', 'item 1'])
  })

  test('text as a person reads it (2 before 10, capitals alike), empty values last either way', () => {
    expect(sortRows(rows, (r) => r.name, { key: 'name', direction: 'ascending' }).map((r) => r.name)).toEqual(['item 1', 'Item 2', 'item 10', ''])
    expect(sortRows(rows, (r) => r.name, { key: 'name', direction: 'descending' }).map((r) => r.name)).toEqual(['item 10', 'Item 2', 'item 1', ''])
  })

  test('no order: the rows as they came, in a new array', () => {
    const same = sortRows(rows, (r) => r.count, undefined)
    expect(same).toEqual(rows)
    expect(same).not.toBe(rows)
  })

  test('a click sorts ascending first, then flips; another column starts ascending', () => {
    expect(nextOrder(undefined, 'count')).toEqual({ key: 'count', direction: 'ascending' })
    expect(nextOrder({ key: 'count', direction: 'ascending' }, 'count')).toEqual({ key: 'count', direction: 'descending' })
    expect(nextOrder({ key: 'count', direction: 'descending' }, 'count')).toEqual({ key: 'count', direction: 'ascending' })
    expect(nextOrder({ key: 'count', direction: 'descending' }, 'name')).toEqual({ key: 'name', direction: 'ascending' })
  })
})
