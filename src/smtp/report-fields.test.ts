import { describe, expect, test } from 'bun:test'
import { addressOf, parseFieldGroups, untyped } from './report-fields.ts'

const groups = (text: string) => parseFieldGroups(text).map((group) => Object.fromEntries(group))

describe('parseFieldGroups', () => {
  test('blank lines separate the groups, and names are lower-cased', () => {
    expect(groups('Reporting-MTA: dns; mx.example.net\r\n\r\nFinal-Recipient: rfc822; a@example.net\r\nACTION: failed\r\n')).toEqual([
      { 'reporting-mta': 'dns; mx.example.net' },
      { 'final-recipient': 'rfc822; a@example.net', action: 'failed' },
    ])
  })

  test('a folded value is unfolded, the fold and its indent becoming one space', () => {
    expect(groups('Diagnostic-Code: smtp; 550 5.1.1 <a@example.net>: Recipient address\r\n    rejected: User unknown\r\n')).toEqual([
      { 'diagnostic-code': 'smtp; 550 5.1.1 <a@example.net>: Recipient address rejected: User unknown' },
    ])
  })

  test('bare LF and lines of only whitespace are read like CRLF and blank lines', () => {
    expect(groups('A: 1\n \t \nB: 2\n\tmore\n')).toEqual([{ a: '1' }, { b: '2 more' }])
  })

  test('values are trimmed but otherwise kept as written', () => {
    expect(groups('Final-Recipient:   RFC822;Bob@Example.NET  \r\n')).toEqual([{ 'final-recipient': 'RFC822;Bob@Example.NET' }])
  })

  test('the first of a repeated field wins, and a fold extends the field it follows', () => {
    expect(groups('Status: 5.1.1\r\nStatus: 4.0.0\r\n (comment)\r\nAction: failed\r\n')).toEqual([{ status: '5.1.1', action: 'failed' }])
  })

  test('lines that are not fields are skipped, and leading or trailing blank lines make no groups', () => {
    expect(groups('\r\n\r\nnot a field\r\n: no name\r\nAction: failed\r\nSta\r\n\r\n\r\n')).toEqual([{ action: 'failed' }])
  })

  test('nothing gives no groups', () => {
    expect(parseFieldGroups('')).toEqual([])
  })
})

describe('untyped', () => {
  test.each([
    ['rfc822; user@example.net', 'user@example.net'],
    ['RFC822;user@example.net', 'user@example.net'],
    ['smtp; 550 5.1.1 No such user; sorry', '550 5.1.1 No such user; sorry'],
    ['X-Postfix; connect to mx[192.0.2.1]:25: Connection timed out', 'connect to mx[192.0.2.1]:25: Connection timed out'],
    ['dns;AM0PR01MB1234.prod.exchangelabs.com', 'AM0PR01MB1234.prod.exchangelabs.com'],
    ['550 5.1.1 no type here', '550 5.1.1 no type here'],
    ['smtp;', null],
    [undefined, null],
  ])('%p -> %p', (value, expected) => {
    expect(untyped(value)).toBe(expected)
  })
})

describe('addressOf', () => {
  test.each([
    ['rfc822; <User@Example.net>', 'User@Example.net'],
    ['<user@isp.example>', 'user@isp.example'],
    ['utf-8; jörg@exämple.example', 'jörg@exämple.example'],
    ['rfc822; <>', null],
    [undefined, null],
  ])('%p -> %p', (value, expected) => {
    expect(addressOf(value)).toBe(expected)
  })
})
