import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const VERSION = 'v1'

/** A 256-bit key for one purpose, derived from the server secret. */
const keyFor = (secret: string, purpose: string) =>
  Buffer.from(hkdfSync('sha256', secret, 'mailstead', purpose, 32))

/**
 * Encrypts `plaintext` for storage (AES-256-GCM, key derived from `secret` and `purpose`). The
 * result names its format, so a later format can be introduced beside it.
 */
export function seal(secret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret, purpose), iv)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
}

/** The plaintext of a sealed value; throws when the secret or purpose differ or it was altered. */
export function unseal(secret: string, purpose: string, sealed: string): string {
  const [version, payload] = sealed.split('.')
  if (version !== VERSION || !payload) throw new Error('Unknown sealed value format')
  const bytes = Buffer.from(payload, 'base64')
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secret, purpose), bytes.subarray(0, 12))
  decipher.setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
}
