import { sha256Hex } from '../../lib/crypto.ts'
import { randomToken } from '../../lib/ids.ts'

export type KeyType = 'secret' | 'public'

/**
 * What a secret key may do: `full` everything a key could before scopes; `sending` send email
 * (HTTP and the SMTP relay) and nothing else; `read` GET routes only. Which routes each scope
 * opens is said in one place, src/http/key-scopes.ts.
 */
export const KEY_SCOPES = ['full', 'sending', 'read'] as const
export type KeyScope = (typeof KEY_SCOPES)[number]

/** What a request does, as a scope sees it: sends email, reads, or writes anything else. */
export type KeyAccess = 'send' | 'read' | 'write'

const GRANTS: Record<KeyScope, ReadonlySet<KeyAccess>> = {
  full: new Set(['send', 'read', 'write']),
  sending: new Set(['send']),
  read: new Set(['read']),
}

/** Whether a key of `scope` may do `access`: HTTP asks it per route, the SMTP relay for `send` at AUTH. */
export const scopeAllows = (scope: KeyScope, access: KeyAccess): boolean => GRANTS[scope].has(access)

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

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/

/**
 * A key's expiry as given (ISO 8601: a date, which means its midnight UTC, or a date and time with
 * its zone), in ms; undefined for anything else. Whether it is in the future is the service's check.
 */
export function readExpiry(text: string): number | undefined {
  if (!ISO_TIME.test(text)) return undefined
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : undefined
}
