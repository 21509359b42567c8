import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import * as repo from './sessions.repository.ts'
import { isSessionTokenShape, newSessionToken, tokenHash } from './tokens.ts'

/** A session ends after two weeks without use. */
export const SESSION_IDLE_MS = 14 * 86_400_000
/** Its use is written down at most this often: a request reads its session, it rarely writes it. */
const TOUCH_MS = 5 * 60_000

export interface SessionMeta {
  address: string | undefined
  userAgent: string | undefined
}

/** A new session for the account: its token is returned this once, for the cookie; only its hash is stored. */
export async function startSession(db: Db, accountId: string, meta: SessionMeta, now: number) {
  const token = newSessionToken()
  await repo.deleteExpiredSessions(db, accountId, now)
  const row = await repo.insertSession(
    db,
    { id: newId(), account_id: accountId, token_hash: tokenHash(token), address: meta.address ?? null, user_agent: meta.userAgent?.slice(0, 300) ?? null },
    now,
    now + SESSION_IDLE_MS,
  )
  return { token, id: row.id, expiresAt: row.expires_at }
}

export interface LiveSession {
  id: string
  accountId: string
  email: string
  expiresAt: number
  /** Its use should be written down (touchSession). */
  stale: boolean
}

/**
 * The session a cookie's token opens, if it is one, has not expired and its account is enabled;
 * undefined otherwise, whatever the reason (one answer for a forged, an expired or a revoked
 * session). Read from the database at each request: a session made or revoked through another
 * process counts at once.
 */
export async function findLiveSession(db: Db, token: string, now: number): Promise<LiveSession | undefined> {
  if (!isSessionTokenShape(token)) return undefined
  const row = await repo.findSessionByHash(db, tokenHash(token))
  if (!row || row.expires_at <= now || row.disabled === 1) return undefined
  return { id: row.id, accountId: row.account_id, email: row.email, expiresAt: row.expires_at, stale: now - row.last_seen_at >= TOUCH_MS }
}

/** Writes down the session's use: it lasts SESSION_IDLE_MS from now. */
export const touchSession = (db: Db, id: string, now: number) => repo.touchSession(db, id, now, now + SESSION_IDLE_MS)

export async function listSessions(db: Db, accountId: string, currentId: string, now: number) {
  return (await repo.listSessions(db, accountId, now)).map((row) => ({
    id: row.id,
    current: row.id === currentId,
    address: row.address,
    userAgent: row.user_agent,
    createdAt: isoTime(row.created_at),
    lastSeenAt: isoTime(row.last_seen_at),
    expiresAt: isoTime(row.expires_at),
  }))
}

/** Ends one of the account's sessions (another account's is not found). */
export async function revokeSession(db: Db, accountId: string, id: string) {
  if (!(await repo.deleteSession(db, accountId, id))) throw notFound(`Session ${id}`)
  return { id, success: true, message: 'Session revoked' }
}
