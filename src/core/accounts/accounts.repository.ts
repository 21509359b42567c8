import { lockedRow } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'

export const insertAccount = (db: Db, row: { id: string; email: string; email_key: string; password_hash: string | null; instance_owner: number }, now: number) =>
  db
    .insertInto('accounts')
    .values({ ...row, disabled: 0, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('email_key').doNothing())
    .returningAll()
    .executeTakeFirst()

export const findAccountByKey = (db: Db, emailKey: string) =>
  db.selectFrom('accounts').selectAll().where('email_key', '=', emailKey).executeTakeFirst()

export const findAccount = (db: Db, id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()

/** The account, its row locked until the transaction ends: a second use of one link waits, then sees the first. */
export const findAccountLocked = (db: Db, id: string) =>
  lockedRow(db, db.selectFrom('accounts').selectAll().where('id', '=', id)).executeTakeFirst()

export const listAccounts = (db: Db) => db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute()

export const anyAccount = async (db: Db) => (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined

export const countInstanceOwners = async (db: Db) =>
  Number((await db.selectFrom('accounts').select((s) => s.fn.countAll().as('n')).where('instance_owner', '=', 1).executeTakeFirstOrThrow()).n)

export const updateAccount = (db: Db, id: string, values: { password_hash?: string | null; disabled?: number; instance_owner?: number }, now: number) =>
  db.updateTable('accounts').set({ ...values, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirst()
