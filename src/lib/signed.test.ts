import { describe, expect, test } from 'bun:test'
import { signToken, verifyToken } from './signed.ts'

const SECRET = 'a-server-secret-of-enough-length-123'

describe('signed tokens', () => {
  test('are short, lower case and URL-safe, and give back their payload', () => {
    const token = signToken(SECRET, 'verp', '3f2a')
    expect(token).toMatch(/^3f2a-[a-z2-7]{16}$/)
    expect(verifyToken(SECRET, 'verp', token)).toBe('3f2a')
  })

  test('a payload may itself contain dashes', () => {
    expect(verifyToken(SECRET, 'click', signToken(SECRET, 'click', 'a-b-c'))).toBe('a-b-c')
  })

  test.each([
    ['another payload', (t: string) => t.replace('3f2a', '3f2b')],
    ['another signature', (t: string) => t.slice(0, -1) + (t.endsWith('a') ? 'b' : 'a')],
    ['no signature', () => '3f2a'],
    ['garbage', () => '-'],
  ])('refuses %s', (_, alter) => {
    expect(verifyToken(SECRET, 'verp', alter(signToken(SECRET, 'verp', '3f2a')))).toBeUndefined()
  })

  test('refuses a token made for another purpose or with another secret', () => {
    const token = signToken(SECRET, 'verp', '3f2a')
    expect(verifyToken(SECRET, 'unsubscribe', token)).toBeUndefined()
    expect(verifyToken('another-secret-of-enough-length-4567', 'verp', token)).toBeUndefined()
  })
})
