import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto'
import { base32, BASE32_ALPHABET } from './signed.ts'

/** Base32 text back to bytes; undefined when a character is outside the alphabet. */
function fromBase32(text: string): Uint8Array | undefined {
  const bytes: number[] = []
  let bits = 0
  let value = 0
  for (const char of text) {
    const digit = BASE32_ALPHABET.indexOf(char)
    if (digit < 0) return undefined
    value = ((value << 5) | digit) & 0xffff
    bits += 5
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return new Uint8Array(bytes)
}

const keyOf = (secret: string, purpose: string) => createHmac('sha256', secret).update(`opaque-id:${purpose}`).digest()

/** The 26 characters of an opaque id: one AES block in base32. */
export const OPAQUE_ID_LENGTH = 26

/**
 * A number as one AES-256 block (the number, then eight zero bytes) in lower-case base32: the
 * same number always gives the same text, and without the secret neither the number nor the
 * order of two texts can be told, so counting them says nothing of a server's volume.
 */
export function hideId(secret: string, purpose: string, id: number): string {
  const block = Buffer.alloc(16)
  block.writeBigUInt64BE(BigInt(id))
  const cipher = createCipheriv('aes-256-ecb', keyOf(secret, purpose), null).setAutoPadding(false)
  return base32(Buffer.concat([cipher.update(block), cipher.final()]))
}

/** The number an opaque id hides, or undefined when it was not made with this secret and purpose. */
export function revealId(secret: string, purpose: string, text: string): number | undefined {
  const bytes = text.length === OPAQUE_ID_LENGTH ? fromBase32(text) : undefined
  if (!bytes || bytes.length !== 16) return undefined
  const decipher = createDecipheriv('aes-256-ecb', keyOf(secret, purpose), null).setAutoPadding(false)
  const block = Buffer.concat([decipher.update(bytes), decipher.final()])
  // The eight zero bytes are a check: text not made here decrypts to them once in 2^64.
  if (block.readBigUInt64BE(8) !== 0n) return undefined
  const id = block.readBigUInt64BE(0)
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : undefined
}
