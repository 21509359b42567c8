import { createHmac } from 'node:crypto'
import { safeEqual } from './crypto.ts'

export const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

/** RFC 4648 base32, lower case, no padding: survives systems that fold the case of what they carry. */
export function base32(bytes: Uint8Array): string {
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return bits > 0 ? out + BASE32_ALPHABET[(value << (5 - bits)) & 31] : out
}

const mac = (secret: string, purpose: string, payload: string) =>
  base32(createHmac('sha256', secret).update(`${purpose}:${payload}`).digest().subarray(0, 10))

/**
 * `payload` with an HMAC (80 bits, lower-case base32) after its last dash. The purpose keeps a
 * token made for one use from being accepted for another.
 */
export const signToken = (secret: string, purpose: string, payload: string): string =>
  `${payload}-${mac(secret, purpose, payload)}`

/** The payload of a token signed for `purpose`, or undefined when the signature is not right. */
export function verifyToken(secret: string, purpose: string, token: string): string | undefined {
  const at = token.lastIndexOf('-')
  if (at <= 0) return undefined
  const payload = token.slice(0, at)
  return safeEqual(token.slice(at + 1), mac(secret, purpose, payload)) ? payload : undefined
}
