import { sha256Hex } from '../../lib/crypto.ts'
import { randomToken } from '../../lib/ids.ts'

export type KeyType = 'secret' | 'public'

const MARKERS: Record<KeyType, string> = { secret: 'sk_', public: 'pk_' }

/** Characters of a key kept in clear: enough to find its row and to recognise it in a list. */
const PREFIX_LENGTH = 11

export interface NewKey {
  key: string
  prefix: string
  hash: string
}

/** A new key: its marker and 256 bits of randomness. Only the prefix and the hash are stored. */
export function generateKey(type: KeyType): NewKey {
  const key = MARKERS[type] + randomToken(32)
  return { key, prefix: keyPrefix(key), hash: sha256Hex(key) }
}

export const keyPrefix = (key: string): string => key.slice(0, PREFIX_LENGTH)

/** The type a key claims by its marker, or undefined for anything that is not a key. */
export function keyTypeOf(key: string): KeyType | undefined {
  if (key.length !== 3 + 43 || !/^[sp]k_[A-Za-z0-9_-]+$/.test(key)) return undefined
  return key.startsWith('sk_') ? 'secret' : 'public'
}

/** How a key is shown after its creation: never whole. */
export const maskedKey = (prefix: string): string => `${prefix}…`
