import { describe, expect, test } from 'bun:test'
import { dataPatch, newRow, retyped, rowsOf, typeOf, valueOf, type DataRow } from './contact-data.ts'

const row = (key: string, type: DataRow['type'], text: string): DataRow => ({ ...newRow(), key, type, text })

describe("a contact's data as the page edits it", () => {
  test('each value has its type: an ISO instant is a date, a list or object is JSON', () => {
    expect([typeOf('free'), typeOf(3), typeOf(true), typeOf('2026-01-02T03:04:05.000Z'), typeOf(null), typeOf([1]), typeOf({ a: 1 })]).toEqual([
      'string',
      'number',
      'boolean',
      'date',
      'null',
      'json',
      'json',
    ])
  })

  test('rows read back as the values they came from', () => {
    const data = { plan: 'pro', seats: 3, vip: false, since: '2026-01-02T03:04:05.000Z', tags: ['a'] }
    const rows = rowsOf(data)
    expect(rows.map((r) => [r.key, r.type, valueOf(r)])).toEqual(Object.entries(data).map(([k, v]) => [k, typeOf(v), { value: v }]))
    expect(dataPatch(data, rows)).toEqual({ data: {} })
  })

  test('saving sends what changed and was added, and null for what was removed', () => {
    const before = { plan: 'free', seats: 3, gone: 'x', empty: null }
    const rows = [row('plan', 'string', 'pro'), row('seats', 'number', '3'), row('vip', 'boolean', 'true'), row('empty', 'null', '')]
    expect(dataPatch(before, rows)).toEqual({ data: { plan: 'pro', vip: true, gone: null, empty: null } })
  })

  test('a blank or repeated key, or a value that is not of its type, is named by its row', () => {
    const blank = row(' ', 'string', 'x')
    const twice = row('plan', 'string', 'y')
    const notNumber = row('seats', 'number', 'three')
    const patch = dataPatch({}, [row('plan', 'string', 'x'), blank, twice, notNumber])
    expect(patch).toEqual({ problems: { [blank.id]: 'Give the key a name', [twice.id]: '"plan" is there twice', [notNumber.id]: 'The value must be a number' } })
  })

  test('changing the type keeps the text when it still reads, and starts afresh when not', () => {
    expect(retyped(row('n', 'string', '42'), 'number').text).toBe('42')
    expect(retyped(row('n', 'string', 'many'), 'number').text).toBe('0')
    expect(retyped(row('b', 'string', 'x'), 'boolean').text).toBe('true')
    expect(valueOf(retyped(row('d', 'string', 'x'), 'date'))).toEqual({ value: expect.stringMatching(/Z$/) })
  })
})
