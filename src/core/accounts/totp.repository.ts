import { lockedRow } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'

/** The account's second factor, locked until the transaction ends: two uses of one code run one after the other. */
export const findTotpLocked = (db: Db, accountId: string) =>
  lockedRow(db, db.selectFrom('account_totp').selectAll().where('account_id', '=', accountId)).executeTakeFirst()

export const isTotpEnabled = async (db: Db, accountId: string) =>
  (await db.selectFrom('account_totp').select('account_id').where('account_id', '=', accountId).where('confirmed_at', 'is not', null).executeTakeFirst()) !== undefined

/** A new secret being enrolled, in place of one not yet confirmed. */
export const putPendingTotp = (db: Db, accountId: string, sealed: string, now: number) =>
  db
    .insertInto('account_totp')
    .values({ account_id: accountId, secret: sealed, confirmed_at: null, last_counter: null, created_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ secret: sealed, created_at: now, last_counter: null }).where('account_totp.confirmed_at', 'is', null))
    .execute()

export const markUsed = (db: Db, accountId: string, counter: number, confirmedAt?: number) =>
  db
    .updateTable('account_totp')
    .set({ last_counter: counter, ...(confirmedAt !== undefined && { confirmed_at: confirmedAt }) })
    .where('account_id', '=', accountId)
    .execute()

export const deleteTotp = (db: Db, accountId: string) => db.deleteFrom('account_totp').where('account_id', '=', accountId).execute()
