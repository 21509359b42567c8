import { createHmac } from 'node:crypto'
import { safeEqual } from '../crypto.ts'

/**
 * How a receiver knows a call came from us and was not replayed:
 *
 *   x-mailstead-id:         the caller's id for this message, the same on every retry (for deduplication)
 *   x-mailstead-timestamp:  unix seconds when this attempt was signed
 *   x-mailstead-signature:  v1=<hex HMAC-SHA256 with the secret over "<timestamp>.<body>">
 *
 * The timestamp is inside the signature, so an old call cannot be replayed with a new date. The
 * signature header may hold several space- or comma-separated `v1=` values: while a secret is
 * being rotated, one for each secret.
 */
export const ID_HEADER = 'x-mailstead-id'
export const TIMESTAMP_HEADER = 'x-mailstead-timestamp'
export const SIGNATURE_HEADER = 'x-mailstead-signature'

/** The hex HMAC-SHA256 of `<timestamp>.<body>`: what every signature scheme here signs. */
export const hmac = (secret: string, timestamp: string, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')

/** The three headers that sign `body`, sent at `nowMs`. */
export function signatureHeaders(secret: string, id: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000))
  return {
    [ID_HEADER]: id,
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: `v1=${hmac(secret, timestamp, body)}`,
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>

/**
 * Whether `body` arrived with a valid signature made with `secret` at most `toleranceSeconds`
 * away from `nowMs` (either way: a clock ahead is as suspect as a replay). Compares in constant time.
 */
export function verifySignature(secret: string, headers: HeaderSource, body: string, nowMs: number, toleranceSeconds = 300): boolean {
  const timestamp = header(headers, TIMESTAMP_HEADER)
  const signatures = header(headers, SIGNATURE_HEADER)
  if (!timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return false
  const expected = `v1=${hmac(secret, timestamp, body)}`
  // Every candidate is compared, so the time taken does not say which one matched.
  return signatures.split(/[\s,]+/).reduce((found, candidate) => safeEqual(candidate, expected) || found, false)
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : headers[key]
  return Array.isArray(value) ? value.join(',') : value
}
