import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import * as repo from './sessions.repository.ts'
import { isSessionTokenShape, newSessionToken, tokenHash } from './tokens.ts'

/** A session ends after two weeks without use (and at its greatest age: SessionPolicy). */
export const SESSION_IDLE_MS = 14 * 86_400_000
/** Its use is written down at most this often: a request reads its session, it rarely writes it. */
const TOUCH_MS = 5 * 60_000

export interface SessionMeta {
  address: string | undefined
  userAgent: string | undefined
}

/**
 * The server's bounds on sessions (MAILSTEAD_SESSION_MAX_PER_ACCOUNT, MAILSTEAD_SESSION_MAX_AGE_DAYS):
 * a stolen cookie, or one left on a shared computer and kept alive by use, works for so long at
 * most, and a flood of sign-ins does not pile up sessions without end.
 */
export interface SessionPolicy {
  maxPerAccount: number
  maxAgeMs: number
}

export const sessionPolicyOf = (config: { sessionMaxPerAccount: number; sessionMaxAgeDays: number }): SessionPolicy => ({
  maxPerAccount: config.sessionMaxPerAccount,
  maxAgeMs: config.sessionMaxAgeDays * 86_400_000,
})

/** When a session made at `createdAt` and used `now` ends: two weeks unused, and never past its greatest age. */
const expiryOf = (policy: SessionPolicy, createdAt: number, now: number) => Math.min(now + SESSION_IDLE_MS, createdAt + policy.maxAgeMs)

/**
 * A new session for the account: its token is returned this once, for the cookie; only its hash
 * is stored. Past the policy's number of sessions, the oldest end.
 */
export async function startSession(db: Db, accountId: string, meta: SessionMeta, now: number, policy: SessionPolicy) {
  const token = newSessionToken()
  await repo.deleteExpiredSessions(db, accountId, now)
  const row = await repo.insertSession(
    db,
    { id: newId(), account_id: accountId, token_hash: tokenHash(token), address: meta.address ?? null, user_agent: meta.userAgent?.slice(0, 300) ?? null },
    now,
    expiryOf(policy, now, now),
  )
  const beyond = (await repo.sessionsNewestFirst(db, accountId)).slice(policy.maxPerAccount).map((s) => s.id)
  if (beyond.length > 0) await repo.deleteSessions(db, accountId, beyond)
  return { token, id: row.id, expiresAt: row.expires_at }
}

export interface LiveSession {
  id: string
  accountId: string
  email: string
  /** The server's operator: sees and may open every project, as its owner (members.service.ts). */
  instanceOwner: boolean
  createdAt: number
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
export async function findLiveSession(db: Db, token: string, now: number, policy: SessionPolicy): Promise<LiveSession | undefined> {
  if (!isSessionTokenShape(token)) return undefined
  const row = await repo.findSessionByHash(db, tokenHash(token))
  // The age is checked here too: a greatest age lowered since the session began holds at once.
  if (!row || row.expires_at <= now || row.created_at + policy.maxAgeMs <= now || row.disabled === 1) return undefined
  return { id: row.id, accountId: row.account_id, email: row.email, instanceOwner: row.instance_owner === 1, createdAt: row.created_at, expiresAt: row.expires_at, stale: now - row.last_seen_at >= TOUCH_MS }
}

/** Writes down the session's use: it lasts SESSION_IDLE_MS from now, never past its greatest age. Returns its new end. */
export async function touchSession(db: Db, session: Pick<LiveSession, 'id' | 'createdAt'>, now: number, policy: SessionPolicy): Promise<number> {
  const expiresAt = expiryOf(policy, session.createdAt, now)
  await repo.touchSession(db, session.id, now, expiresAt)
  return expiresAt
}

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
