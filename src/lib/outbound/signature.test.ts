import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { signatureHeaders, verifySignature } from './signature.ts'

const SECRET = 'whsec-a-project-secret-of-enough-length'
const BODY = '{"event":"email.delivered","data":{"id":"em_1"}}'
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5, 678)

describe('signing a call', () => {
  test('gives the id, the unix time in seconds, and v1= the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    const headers = signatureHeaders(SECRET, 'evt_123', BODY, NOW)
    const timestamp = String(Math.floor(NOW / 1000))
    expect(headers).toEqual({
      'x-mailstead-id': 'evt_123',
      'x-mailstead-timestamp': timestamp,
      'x-mailstead-signature': `v1=${createHmac('sha256', SECRET).update(`${timestamp}.${BODY}`).digest('hex')}`,
    })
  })

  test('a retry keeps its id and gets a new timestamp and signature', () => {
    const first = signatureHeaders(SECRET, 'evt_123', BODY, NOW)
    const retry = signatureHeaders(SECRET, 'evt_123', BODY, NOW + 60_000)
    expect(retry['x-mailstead-id']).toBe(first['x-mailstead-id']!)
    expect(retry['x-mailstead-signature']).not.toBe(first['x-mailstead-signature']!)
  })
})

describe('verifying a call', () => {
  const signed = signatureHeaders(SECRET, 'evt_123', BODY, NOW)

  test('accepts what was signed, as a plain object with any header case or as Headers', () => {
    expect(verifySignature(SECRET, signed, BODY, NOW)).toBe(true)
    const shouted = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]))
    expect(verifySignature(SECRET, shouted, BODY, NOW + 1000)).toBe(true)
    expect(verifySignature(SECRET, new Headers(signed), BODY, NOW)).toBe(true)
  })

  test.each([
    ['a tampered body', SECRET, { ...signed }, BODY.replace('em_1', 'em_2')],
    ['another secret', 'another-secret-of-enough-length-12345', { ...signed }, BODY],
    ['a timestamp changed after signing', SECRET, { ...signed, 'x-mailstead-timestamp': String(Number(signed['x-mailstead-timestamp']) + 1) }, BODY],
    ['no signature', SECRET, { ...signed, 'x-mailstead-signature': undefined }, BODY],
    ['no timestamp', SECRET, { ...signed, 'x-mailstead-timestamp': undefined }, BODY],
    ['a timestamp that is not a number', SECRET, { ...signed, 'x-mailstead-timestamp': '1e9' }, BODY],
    ['a signature of another scheme', SECRET, { ...signed, 'x-mailstead-signature': signed['x-mailstead-signature']!.replace('v1=', 'v0=') }, BODY],
    ['a truncated signature', SECRET, { ...signed, 'x-mailstead-signature': signed['x-mailstead-signature']!.slice(0, -2) }, BODY],
  ])('refuses %s', (_, secret, headers, body) => {
    expect(verifySignature(secret, headers, body, NOW)).toBe(false)
  })

  test('refuses a timestamp older than the tolerance (300 seconds unless told), and one as far ahead', () => {
    const signedAt = Math.floor(NOW / 1000) * 1000
    expect(verifySignature(SECRET, signed, BODY, signedAt + 300_000)).toBe(true)
    expect(verifySignature(SECRET, signed, BODY, signedAt + 301_000)).toBe(false)
    expect(verifySignature(SECRET, signed, BODY, signedAt - 301_000)).toBe(false)
    expect(verifySignature(SECRET, signed, BODY, signedAt + 3_600_000, 3600)).toBe(true)
    expect(verifySignature(SECRET, signed, BODY, signedAt + 61_000, 60)).toBe(false)
  })

  test('accepts any one of several signatures, as sent while a secret is rotated', () => {
    const old = signatureHeaders('the-old-secret-of-enough-length-123456', 'evt_123', BODY, NOW)['x-mailstead-signature']
    const both = { ...signed, 'x-mailstead-signature': `${old} ${signed['x-mailstead-signature']}` }
    expect(verifySignature(SECRET, both, BODY, NOW)).toBe(true)
    expect(verifySignature(SECRET, { ...both, 'x-mailstead-signature': `${old},${old}` }, BODY, NOW)).toBe(false)
  })
})
