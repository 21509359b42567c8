import { describe, expect, test } from 'bun:test'
import { createUtf8Check } from './utf8-check.ts'

/** Pushes `bytes` in chunks of `size`; the first bad line, or undefined. */
function check(bytes: Uint8Array, size: number): number | undefined {
  const utf8 = createUtf8Check()
  for (let at = 0; at < bytes.length; at += size) {
    const bad = utf8.push(Buffer.from(bytes.subarray(at, at + size)))
    if (bad !== undefined) return bad
  }
  return utf8.end()
}

const text = 'email,name\nzoë@example.com,Zoë 😀\nann@example.com,Ann\n'

describe('createUtf8Check', () => {
  test.each([1, 2, 3, 5, 64])('UTF-8 cut into chunks of %i bytes is fine', (size) => {
    expect(check(Buffer.from(text), size)).toBeUndefined()
  })

  test.each([1, 3, 7, 64])('a Latin-1 byte is found on its line, in chunks of %i bytes', (size) => {
    const bytes = Buffer.concat([Buffer.from('email,name\nann@example.com,Ann\nzoe@example.com,Zo'), Buffer.from([0xeb]), Buffer.from('\n')])
    expect(check(bytes, size)).toBe(3)
  })

  test('a character cut short at the end is reported on the last line; an overlong form or a surrogate is refused', () => {
    expect(check(Buffer.from([...Buffer.from('a\nb'), 0xf0, 0x9f]), 64)).toBe(2)
    expect(check(Buffer.from([0x61, 0xc0, 0xaf]), 64)).toBe(1)
    expect(check(Buffer.from([0x0a, 0xed, 0xa0, 0x80]), 1)).toBe(2)
  })
})
