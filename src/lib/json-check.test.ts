import { describe, expect, test } from 'bun:test'
import { findJsonFlaw } from './json-check.ts'

const nested = (depth: number) => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))

describe('findJsonFlaw', () => {
  test('sensible values have no flaw, whatever their size', () => {
    expect(findJsonFlaw({ email: 'jane@example.com', data: { tags: ['a', 'b'], emoji: '📰', n: 1, ok: null } }, 32)).toBeUndefined()
    expect(findJsonFlaw(Array.from({ length: 10_000 }, () => ({})), 32)).toBeUndefined()
    expect(findJsonFlaw('a plain string', 0)).toBeUndefined()
  })

  test('containers count as levels: exactly the limit passes, one more is too deep', () => {
    expect(findJsonFlaw(nested(32), 32)).toBeUndefined()
    expect(findJsonFlaw(nested(33), 32)).toEqual({ path: 'a.'.repeat(31) + 'a', problem: 'too-deep' })
    expect(findJsonFlaw([[[]]], 2)).toEqual({ path: '[0][0]', problem: 'too-deep' })
  })

  test('nesting far past the call stack is found without overflowing it', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000))
    expect(findJsonFlaw(deep, 64)?.problem).toBe('too-deep')
  })

  test('a lone surrogate in a value, an item or a key is ill-formed, and named by its path', () => {
    expect(findJsonFlaw(JSON.parse('{"email":"a\\ud800@example.com"}'), 32)).toEqual({ path: 'email', problem: 'ill-formed' })
    expect(findJsonFlaw(JSON.parse('{"data":{"tags":["ok","\\udc00"]}}'), 32)).toEqual({ path: 'data.tags[1]', problem: 'ill-formed' })
    expect(findJsonFlaw(JSON.parse('{"data":{"\\ud800":1}}'), 32)).toEqual({ path: 'data.\ufffd', problem: 'ill-formed' })
    expect(findJsonFlaw(JSON.parse('"\\udc00\\ud800"'), 32)).toEqual({ path: '', problem: 'ill-formed' })
  })

  test('a surrogate pair is a well-formed character', () => {
    expect(findJsonFlaw(JSON.parse('{"name":"\\ud83d\\udcf0"}'), 32)).toBeUndefined()
  })

  test('a field of a value walked before is not walked again, and its levels are known exactly', () => {
    let looks = 0
    const data = new Proxy({ a: nested(9), b: [[]] }, { ownKeys: (target) => (looks++, Reflect.ownKeys(target)) })
    expect(findJsonFlaw({ email: 'jane@example.com', data }, 64)).toBeUndefined()
    expect(looks).toBe(1)
    // Ten levels: data itself and the nine of `a`.
    expect(findJsonFlaw(data, 10)).toBeUndefined()
    expect(looks).toBe(1)
    expect(findJsonFlaw(data, 9)).toEqual({ path: 'a' + '.a'.repeat(8), problem: 'too-deep' })
  })

  test('what a walk that found a flaw had not finished is walked again, and the flaw found again', () => {
    const body = { data: { tags: ['ok', JSON.parse('"\\udc00"')] }, later: {} }
    expect(findJsonFlaw(body, 64)).toEqual({ path: 'data.tags[1]', problem: 'ill-formed' })
    expect(findJsonFlaw(body.data, 32)).toEqual({ path: 'tags[1]', problem: 'ill-formed' })
  })
})

