import { describe, expect, test } from 'bun:test'
import { cellText, cellValue, exportHeader, parseSubscribed, planColumns, readRow } from './csv-columns.ts'

describe('planColumns', () => {
  test('finds email and subscribed whatever their case and blanks; the rest are data keys as written', () => {
    expect(planColumns([' Email ', 'firstName', 'SUBSCRIBED', ' plan '])).toEqual({
      width: 4,
      email: 0,
      subscribed: 2,
      data: [
        { index: 1, key: 'firstName' },
        { index: 3, key: 'plan' },
      ],
    })
  })

  test('createdAt and updatedAt are left out; data.<reserved name> is that data key', () => {
    const plan = planColumns(['email', 'createdAt', 'UPDATEDAT', 'data.email', 'data.plan'])
    expect(plan.data).toEqual([
      { index: 3, key: 'email' },
      { index: 4, key: 'data.plan' },
    ])
  })

  test('a header without an email column is refused, naming what it has', () => {
    expect(() => planColumns(['name', 'mail'])).toThrow('the CSV has no email column: the first line must be a header with one, and it has "name", "mail"')
  })

  test.each([
    [['email', 'plan', 'plan'], 'the header names the column "plan" twice'],
    [['email', 'EMAIL'], 'the header names the column "EMAIL" twice'],
    [['email', ''], 'column 2 of the header has no name'],
    [['email', 'k'.repeat(201)], 'not a usable data key'],
  ])('the header %j is refused', (header, message) => {
    expect(() => planColumns(header)).toThrow(message)
  })

  test('an export header names data keys that clash with the contact fields data.<key>, and reads back the same', () => {
    const header = exportHeader(['plan', 'Email'])
    expect(header).toEqual(['email', 'subscribed', 'createdAt', 'updatedAt', 'plan', 'data.Email'])
    expect(planColumns(header).data.map((d) => d.key)).toEqual(['plan', 'Email'])
  })
})

describe('cellValue', () => {
  test.each([
    ['34', 34],
    ['3.5', 3.5],
    ['-2', -2],
    ['0', 0],
    ['true', true],
    ['false', false],
    ['{"a":[1,2]}', { a: [1, 2] }],
    ['[1,"x"]', [1, 'x']],
    ['"34"', '34'],
  ])('%j is read as %j', (cell, value) => {
    expect(cellValue(cell)).toEqual(value)
  })

  test.each(['02139', '1e3', '1.0', '-0', '+1', ' 34', '34 ', '0x10', 'Infinity', 'NaN', '9007199254740993', 'TRUE', 'yes', '{not json', '[draft]', 'null', '"unclosed', 'plain text'])(
    '%j stays text',
    (cell) => {
      expect(cellValue(cell)).toBe(cell)
    },
  )
})

describe('cellText', () => {
  test.each([['text'], [''], ['34'], ['02139'], ['true'], ['{"a":1}'], ['"quoted"'], [34], [-2.5], [1e21], [true], [false], [{ a: { b: [1, null] } }], [[1, 'two']]])(
    '%j reads back as itself',
    (value) => {
      expect(cellValue(cellText(value))).toEqual(value)
    },
  )

  test('text that would read as something else is written as a JSON string; other text as it is', () => {
    expect(cellText('Ada')).toBe('Ada')
    expect(cellText('34')).toBe('"34"')
    expect(cellText('')).toBe('""')
  })
})

describe('parseSubscribed', () => {
  test.each([
    ['true', true],
    [' YES ', true],
    ['1', true],
    ['False', false],
    ['no', false],
    ['0', false],
    ['', undefined],
    ['  ', undefined],
    ['maybe', null],
    ['2', null],
  ])('%j is %j', (cell, value) => {
    expect(parseSubscribed(cell)).toBe(value as boolean | undefined | null)
  })
})

describe('readRow', () => {
  const plan = planColumns(['email', 'subscribed', 'age', 'city'])

  test('a row becomes the contact: address checked, empty cells set nothing', () => {
    const result = readRow([' Ada@Example.COM ', '', '36', ''], plan)
    expect(result).toEqual({ ok: true, contact: { address: expect.objectContaining({ address: 'Ada@Example.COM', key: 'ada@example.com' }), data: { age: 36 } } })
  })

  test('subscribed is given only when the cell says so', () => {
    const result = readRow(['a@example.com', 'no', '', 'Paris'], plan)
    expect(result.ok && result.contact).toMatchObject({ subscribed: false, data: { city: 'Paris' } })
  })

  test.each([
    [['a@example.com', '', ''], 'the row has 3 fields where the header has 4'],
    [['', '', '', ''], 'the email is empty'],
    [['not-an-address', '', '', ''], '"not-an-address": The address is not valid: it must look like name@domain.'],
    [['a@example.com', 'maybe', '', ''], 'subscribed must be true, false, yes, no, 1 or 0 (or empty)'],
    [['a@example.com', '', '', 'x'.repeat(70_000)], "the row's data is larger than 64 KiB as JSON"],
  ])('%j is refused: %s', (fields, message) => {
    expect(readRow(fields, plan)).toEqual({ ok: false, message })
  })
})
