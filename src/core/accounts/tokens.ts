import { createHmac } from 'node:crypto'
import { sha256Hex } from '../../lib/crypto.ts'
import { randomToken } from '../../lib/ids.ts'
import { signToken, verifyToken } from '../../lib/signed.ts'

/**
 * The tokens of accounts. A session's is 256 random bits, kept by the browser alone: the database
 * holds its SHA-256, so a copy of the database or a backup opens no session. Links (a first
 * password, an invitation, the first-run setup) carry signed tokens with their expiry inside,
 * checked before the database is asked; each is made single-use by what it names (a password that
 * has changed since, an invitation accepted, an account that exists).
 */

export const newSessionToken = (): string => randomToken(32)

export const tokenHash = (token: string): string => sha256Hex(token)

/** A session's cookie: 43 URL-safe characters, or nothing worth a database lookup. */
export const isSessionTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token)

/**
 * What a cookie-authenticated write must repeat in its X-CSRF-Token header: an HMAC of the session's
 * id, so that it needs no storage and changes with each session. A page of another origin cannot
 * read it (it is returned in response bodies only), so it cannot forge the header.
 */
export const csrfTokenFor = (secret: string, sessionId: string): string =>
  createHmac('sha256', secret).update(`csrf:${sessionId}`).digest('base64url')

/** A link token for `purpose` carrying `fields` (no dots or dashes in them) until `expiresAt`. */
export function linkToken(secret: string, purpose: string, fields: readonly string[], expiresAt: number): string {
  return signToken(secret, purpose, [...fields, expiresAt.toString(36)].join('.'))
}

/**
 * The fields of a link token signed for `purpose`, or undefined when it is forged, made for
 * another purpose, malformed or expired at `now`.
 */
export function readLinkToken(secret: string, purpose: string, token: string, now: number): string[] | undefined {
  if (token.length > 512) return undefined
  const payload = verifyToken(secret, purpose, token)
  if (payload === undefined) return undefined
  const parts = payload.split('.')
  const expiresAt = parseInt(parts.pop() ?? '', 36)
  if (!Number.isFinite(expiresAt) || expiresAt <= now) return undefined
  return parts
}

/** A short fingerprint of a password hash: a link made under one hash stops working once it changes. */
export const passwordStamp = (passwordHash: string | null): string => sha256Hex(passwordHash ?? 'unset').slice(0, 16)
