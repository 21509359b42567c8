import type { Db } from '../../db/schema.ts'
import { prepared } from '../../db/prepared.ts'

export interface NewSession {
  id: string
  account_id: string
  token_hash: string
  address: string | null
  user_agent: string | null
}

export const insertSession = (db: Db, row: NewSession, now: number, expiresAt: number) =>
  db
    .insertInto('account_sessions')
    .values({ ...row, created_at: now, last_seen_at: now, expires_at: expiresAt })
    .returningAll()
    .executeTakeFirstOrThrow()

/** The session with this token hash, with its account: what every cookie-authenticated request reads. */
export const findSessionByHash = (db: Db, tokenHash: string) => selectSession(db, { tokenHash }).then((rows) => rows[0])

const selectSession = prepared((db, p: { tokenHash: string }) =>
  db
    .selectFrom('account_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.id', 's.account_id', 's.created_at', 's.last_seen_at', 's.expires_at', 'a.email', 'a.disabled', 'a.instance_owner'])
    .where('s.token_hash', '=', p.tokenHash),
)

export const touchSession = (db: Db, id: string, now: number, expiresAt: number) =>
  db.updateTable('account_sessions').set({ last_seen_at: now, expires_at: expiresAt }).where('id', '=', id).execute()

export const listSessions = (db: Db, accountId: string, now: number) =>
  db
    .selectFrom('account_sessions')
    .select(['id', 'address', 'user_agent', 'created_at', 'last_seen_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id')
    .execute()

export const deleteSession = (db: Db, accountId: string, id: string) =>
  db.deleteFrom('account_sessions').where('account_id', '=', accountId).where('id', '=', id).returning('id').executeTakeFirst()

/** Every session of the account but `keep` (none when undefined). */
export const deleteAccountSessions = (db: Db, accountId: string, keep?: string) =>
  db
    .deleteFrom('account_sessions')
    .where('account_id', '=', accountId)
    .$if(keep !== undefined, (q) => q.where('id', '<>', keep!))
    .execute()

export const deleteExpiredSessions = (db: Db, accountId: string, now: number) =>
  db.deleteFrom('account_sessions').where('account_id', '=', accountId).where('expires_at', '<=', now).execute()

/** The account's sessions, newest first: past the first `keep`, the ones a new sign-in ends. */
export const sessionsNewestFirst = (db: Db, accountId: string) =>
  db.selectFrom('account_sessions').select('id').where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()

export const deleteSessions = (db: Db, accountId: string, ids: readonly string[]) =>
  db.deleteFrom('account_sessions').where('account_id', '=', accountId).where('id', 'in', ids).execute()
