import { changeVersion } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import { createAuthThrottle, MAX_WAITING, type FailureCounts } from '../../lib/auth-throttle.ts'
import type { Clock } from '../../lib/clock.ts'
import { sha256Hex } from '../../lib/crypto.ts'
import { AppError } from '../../lib/errors.ts'
import { TtlCache } from '../../lib/ttl-cache.ts'
import { findKeyStanding, touchKeys } from './projects.repository.ts'
import { authenticate, projectChanges, requireKeyShape, requireUnexpired, type Caller } from './projects.service.ts'

const REMEMBER_MS = 60_000

/** A key's last use is written at most this often per process: `lastUsedAt` is a minute's news, not a request's. */
export const KEY_USE_WRITE_MS = 60_000

/** How the authenticator writes a key's use: through the group-commit writer, never awaited by the request. */
export type KeyUseWriter = (work: (trx: Db) => Promise<unknown>) => Promise<unknown>

/**
 * `authenticate` with a memory of the keys it has accepted, checked at every request, so that a
 * revoked key or a disabled project is refused at its next request, on a connection kept open
 * too. Keys and projects change through the CLI or another server: their commit moves the
 * database's change signal (`changeVersion`). In this process they change through the projects service, which counts
 * its changes. Either way the memory is dropped.
 *
 * Failed logins are counted in `failures`: in the database when several processes share it, so
 * that a guesser is slowed by its failures through any of them (src/cluster/rate-limits.ts).
 */
export function createAuthenticator(db: Db, clock: Clock, failures?: FailureCounts, writeUse?: KeyUseWriter) {
  const accepted = new TtlCache<Caller>(clock, REMEMBER_MS)
  const standing = new TtlCache<{ expiresAt: number | null }>(clock, REMEMBER_MS)
  const noteUse = keyUseNotes(clock, writeUse)
  let seenVersion = ''
  // Another process's commit (the CLI) shows in the change signal; this process's own changes in projectChanges().
  const forgetIfChanged = async () => {
    const version = `${await changeVersion(db)} ${projectChanges()}`
    if (version === seenVersion) return
    accepted.clear()
    standing.clear()
    seenVersion = version
  }
  const throttle = createAuthThrottle(clock, failures)
  const underWay = new Map<string, Promise<Caller>>()
  async function check(apiKey: string | undefined): Promise<Caller> {
    await forgetIfChanged()
    const cacheKey = apiKey ? sha256Hex(apiKey) : ''
    const known = accepted.get(cacheKey)
    if (known) {
      // A remembered key may have expired since: its expiry holds to the millisecond.
      requireUnexpired(known.expiresAt, clock.now())
      noteUse(known.keyId)
      return known
    }
    const caller = await authenticate(db, apiKey, clock.now())
    accepted.set(cacheKey, caller)
    noteUse(caller.keyId)
    return caller
  }
  return {
    authenticate: check,
    /**
     * A login from a client: an HTTP request or SMTP AUTH, by one rule (docs/security.md). A key
     * without a key's shape is refused before any database work and is no guess at a key, so it
     * is neither slowed nor counted. Any other counts as under way from its start and waits as its
     * address's failed logins and logins under way say (the one throttle of both protocols), then
     * is checked; a 401 counts as a failure. A key accepted within the last minute is no guess
     * and is not counted as under way (auth-throttle.ts `run`). `address` is
     * undefined for a caller without a socket (`app.handle` in tests): there is nobody to slow.
     */
    async logIn(apiKey: string | undefined, address: string | undefined): Promise<Caller> {
      const key = requireKeyShape(apiKey)
      if (address === undefined) return check(key)
      await forgetIfChanged()
      const hash = sha256Hex(key)
      // The same key from the same address while its login is under way (an application's
      // parallel requests at a cold start) is the same guess: it shares that login's answer, its
      // wait and its one check, and is not counted again.
      const same = `${address} ${hash}`
      const under = underWay.get(same)
      if (under) return under
      const login = throttle.run([address], () => check(key), isFailedLogin, (ms) => tooManyWaiting(ms), accepted.get(hash) !== undefined)
      underWay.set(same, login)
      return login.finally(() => underWay.delete(same))
    },
    /**
     * Throws as `authenticate` would if the caller's key has been revoked or its project disabled
     * since: what a session that authenticated once (SMTP) asks before each command. Costs one
     * read of the change signal while nothing has changed (on PostgreSQL, at most one a second).
     */
    async confirm(caller: Caller): Promise<void> {
      await forgetIfChanged()
      const cacheKey = String(caller.keyId)
      const known = standing.get(cacheKey)
      if (known) {
        requireUnexpired(known.expiresAt, clock.now())
        noteUse(caller.keyId)
        return
      }
      const row = await findKeyStanding(db, caller.keyId)
      if (!row || row.revoked_at !== null) throw new AppError(401, 'UNAUTHORIZED', 'The API key this session logged in with has been revoked')
      requireUnexpired(row.expires_at, clock.now())
      if (row.disabled === 1) throw new AppError(403, 'PROJECT_DISABLED', 'This project is disabled')
      standing.set(cacheKey, { expiresAt: row.expires_at })
      noteUse(caller.keyId)
    },
    forget: () => {
      accepted.clear()
      standing.clear()
    },
    /** The one login throttle: console sign-ins wait and count their failures through it too. */
    throttle,
  }
}

export type Authenticator = ReturnType<typeof createAuthenticator>

/**
 * Notes a key's use: a Map lookup per request; once a minute per key, a write of `last_used_at`
 * through the writer (grouped with whatever else commits then), which the request does not wait
 * for. A failed write is forgotten, so the next use writes again.
 */
function keyUseNotes(clock: Clock, writeUse: KeyUseWriter | undefined) {
  const written = new Map<number, number>()
  return (keyId: number) => {
    if (!writeUse) return
    const now = clock.now()
    const last = written.get(keyId)
    if (last !== undefined && now - last < KEY_USE_WRITE_MS) return
    written.set(keyId, now)
    writeUse((trx) => touchKeys(trx, [keyId], now)).catch(() => written.delete(keyId))
  }
}

/** A wrong key, password or code: what the login throttle counts as a failure. */
export const isFailedLogin = (error: unknown) => error instanceof AppError && error.status === 401 && error.code === 'UNAUTHORIZED'

/** A login turned away unchecked: its address (or account, `whose`) has MAX_WAITING logins waiting after failed ones. */
export function tooManyWaiting(delayMs: number, whose = 'your address', what = 'key'): AppError {
  return new AppError(429, 'RATE_LIMITED', `Too many logins from ${whose} are waiting after failed ones: at most ${MAX_WAITING} at once`, {
    suggestion: `Wait for Retry-After and check the ${what}: failed logins slow every login from ${whose} for a while.`,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(delayMs / 1000))), 'x-ratelimit-scope': 'login' },
  })
}
