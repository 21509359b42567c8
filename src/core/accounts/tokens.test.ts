import { describe, expect, test } from 'bun:test'
import { csrfTokenFor, isSessionTokenShape, linkToken, newSessionToken, readLinkToken } from './tokens.ts'

const SECRET = 'a-server-secret-of-enough-length-123'

describe('link tokens', () => {
  test('give back their fields until they expire', () => {
    const token = linkToken(SECRET, 'invitation', ['abc', '42'], 1000)
    expect(readLinkToken(SECRET, 'invitation', token, 999)).toEqual(['abc', '42'])
    expect(readLinkToken(SECRET, 'invitation', token, 1000)).toBeUndefined()
  })

  test.each([
    ['another purpose', (t: string) => readLinkToken(SECRET, 'password', t, 0)],
    ['another secret', (t: string) => readLinkToken(`${SECRET}x`, 'invitation', t, 0)],
    ['a changed field', (t: string) => readLinkToken(SECRET, 'invitation', t.replace('abc', 'abd'), 0)],
    ['a later expiry written in', (t: string) => readLinkToken(SECRET, 'invitation', t.replace('.rs', '.zz'), 0)],
    ['a token far too long', () => readLinkToken(SECRET, 'invitation', 'a'.repeat(600), 0)],
  ])('are refused with %s', (_, read) => {
    expect(read(linkToken(SECRET, 'invitation', ['abc'], 1000))).toBeUndefined()
  })
})

describe('session tokens', () => {
  test('are 256 random bits in 43 URL-safe characters', () => {
    const token = newSessionToken()
    expect(isSessionTokenShape(token)).toBe(true)
    expect(token).not.toBe(newSessionToken())
    expect(isSessionTokenShape(`${token};`)).toBe(false)
  })

  test("a session's CSRF token differs from another session's and from another server's", () => {
    expect(csrfTokenFor(SECRET, 'a')).not.toBe(csrfTokenFor(SECRET, 'b'))
    expect(csrfTokenFor(SECRET, 'a')).not.toBe(csrfTokenFor(`${SECRET}x`, 'a'))
  })
})
