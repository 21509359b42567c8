import type { Db } from '../../db/schema.ts'

/** The account's recovery codes, in place of any it had. */
export async function replaceRecoveryCodes(db: Db, accountId: string, hashes: readonly string[], now: number): Promise<void> {
  await deleteRecoveryCodes(db, accountId)
  await db
    .insertInto('account_recovery_codes')
    .values(hashes.map((code_hash) => ({ account_id: accountId, code_hash, used_at: null, created_at: now })))
    .execute()
}

export const deleteRecoveryCodes = (db: Db, accountId: string) => db.deleteFrom('account_recovery_codes').where('account_id', '=', accountId).execute()

/** Marks the code used if it is one of the account's and not used yet: true when it was. */
export async function useRecoveryCode(db: Db, accountId: string, hash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('account_recovery_codes')
    .set({ used_at: now })
    .where('account_id', '=', accountId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function countUnusedRecoveryCodes(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('account_recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
