import { describe, expect, test } from 'bun:test'
import { signToken } from '../lib/signed.ts'
import { parseReturnPath, returnPath } from './verp.ts'

const SECRET = 'a-secret-a-secret-a-secret-a-secret'
const HOST = 'mst.sender.example.com'
const tokenOf = (address: string) => /^bounces\+([^@]+)@/.exec(address)![1]!

describe('return-path tokens', () => {
  test('name their delivery and host, and read back', () => {
    for (const id of [1, 2, 9, 36, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(parseReturnPath(SECRET, returnPath(SECRET, id, HOST))).toEqual({ deliveryId: id, host: HOST })
    }
  })

  test('are opaque: consecutive deliveries share no prefix and show no number', () => {
    const tokens = [1, 2, 3, 9, 10].map((id) => tokenOf(returnPath(SECRET, id, HOST)))
    expect(tokens.every((t) => /^[a-z2-7]{26}-[a-z2-7]{16}$/.test(t))).toBe(true)
    expect(new Set(tokens.map((t) => t.slice(0, 4))).size).toBe(tokens.length)
    expect(tokens.some((t) => /^[0-9a-z]{1,2}-/.test(t))).toBe(false)
  })

  test('fit a local part (64 octets at most, RFC 5321)', () => {
    expect(`bounces+${tokenOf(returnPath(SECRET, Number.MAX_SAFE_INTEGER, HOST))}`.length).toBeLessThanOrEqual(64)
  })

  test('are refused when changed, or made with another secret', () => {
    const token = tokenOf(returnPath(SECRET, 42, HOST))
    const changed = (token[0] === 'a' ? 'b' : 'a') + token.slice(1)
    expect(parseReturnPath(SECRET, `bounces+${changed}@${HOST}`)).toBeUndefined()
    expect(parseReturnPath('another-secret-another-secret', returnPath(SECRET, 42, HOST))).toBeUndefined()
    expect(parseReturnPath(SECRET, `bounces+${signToken(SECRET, 'return-path', 'z'.repeat(26))}@${HOST}`)).toBeUndefined()
  })

  test('of the old, readable form still read, marked legacy so that the caller can let them expire', () => {
    expect(parseReturnPath(SECRET, `bounces+${signToken(SECRET, 'return-path', '1z')}@${HOST.toUpperCase()}`)).toEqual({ deliveryId: 71, host: HOST, legacy: true })
  })
})
