import { describe, expect, test } from 'bun:test'
import { newId } from '../../lib/ids.ts'
import type { ContactRow } from '../../db/schema.ts'
import { changesOf, checkContactData, decodeCursor, encodeCursor } from './contact.ts'

describe('cursors', () => {
  test.each([
    { sort: 'createdAt', dir: 'desc', value: 1_790_000_000_000, id: newId() },
    { sort: 'email', dir: 'asc', value: 'odd:name%_@example.com', id: newId() },
  ] as const)('a cursor decodes to the place it was made from: %j', (place) => {
    expect(decodeCursor(encodeCursor(place), place.sort, place.dir)).toEqual(place)
  })

  test('a cursor made under another sort or direction is refused, naming the one it was made for', () => {
    const cursor = encodeCursor({ sort: 'email', dir: 'asc', value: 'a@example.com', id: newId() })
    expect(() => decodeCursor(cursor, 'email', 'desc')).toThrow('sort=email&dir=asc')
    expect(() => decodeCursor(cursor, 'createdAt', 'asc')).toThrow('sort=email&dir=asc')
  })

  test.each([
    '',
    'zzz',
    'not a cursor',
    Buffer.from('c1:' + newId()).toString('base64url'),
    Buffer.from(`c2:createdAt:desc:${newId()}:soon`).toString('base64url'),
    Buffer.from('c2:email:asc:123:a@example.com').toString('base64url'),
    Buffer.from(`c2:subject:asc:${newId()}:x`).toString('base64url'),
    'a'.repeat(2000),
  ])('a forged cursor %j is refused', (cursor) => {
    expect(() => decodeCursor(cursor, 'createdAt', 'desc')).toThrow('cursor')
  })
})

describe('checkContactData', () => {
  test('accepts ordinary data', () => {
    expect(() => checkContactData({ plan: 'pro', seats: 3, tags: ['a'], nested: { x: null } })).not.toThrow()
  })

  test('refuses data over 64 KiB', () => {
    expect(() => checkContactData({ blob: 'x'.repeat(70_000) })).toThrow('64 KiB')
  })

  test('refuses empty and over-long keys', () => {
    expect(() => checkContactData({ '': 1 })).toThrow('keys')
    expect(() => checkContactData({ ['k'.repeat(201)]: 1 })).toThrow('keys')
  })

  test('data itself and 31 levels inside it pass; one more is refused, naming the field', () => {
    const nested = (depth: number) => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))
    expect(() => checkContactData({ x: nested(31) })).not.toThrow()
    expect(() => checkContactData({ x: nested(32) }, 'properties')).toThrow('properties: is nested more than 32 levels deep')
    expect(() => checkContactData({ x: JSON.parse('['.repeat(5000) + ']'.repeat(5000)) })).toThrow('32 levels')
  })

  test('refuses a lone surrogate in a value or a key, naming where', () => {
    expect(() => checkContactData({ tags: ['ok', 'a\ud800'] })).toThrow('data.tags[1]: is not well-formed Unicode')
    expect(() => checkContactData({ nested: { '\udc00': 1 } })).toThrow('well-formed Unicode')
  })
})

describe('what an edit changed', () => {
  const row = (fields: Partial<ContactRow>): ContactRow => ({ id: 'c', project_id: 1, email: 'a@example.com', email_key: 'a@example.com', subscribed: 1, data: '{}', created_at: 0, updated_at: 0, ...fields })

  test('each data key added, changed or removed, from and to; the subscription and the address likewise', () => {
    const before = row({ data: JSON.stringify({ plan: 'free', gone: true, same: { a: 1 } }) })
    const after = row({ data: JSON.stringify({ plan: 'pro', seats: 3, same: { a: 1 } }), subscribed: 0, email: 'b@example.com' })
    expect(changesOf(before, after)).toEqual({
      data: { plan: { from: 'free', to: 'pro' }, gone: { from: true, to: null }, seats: { from: null, to: 3 } },
      subscribed: { from: true, to: false },
      email: { from: 'a@example.com', to: 'b@example.com' },
    })
  })

  test('an edit that changed nothing is none', () => {
    expect(changesOf(row({ data: '{"a":1}' }), row({ data: '{"a":1}' }))).toBeUndefined()
  })
})
