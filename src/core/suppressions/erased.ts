import type { Db } from '../../db/schema.ts'
import { sha256Hex } from '../../lib/crypto.ts'

/*
 * An erased contact's address stays suppressed without being kept: its entry holds the SHA-256 of
 * the address key (the address as Mailstead compares addresses) instead of the address, so that a
 * later send to it is recognised and suppressed, while the list no longer says who it was. Anyone
 * who already knows an address can test it against the list; nobody can read one out of it.
 */

const PREFIX = 'sha256:'

/** The entry an erased address is kept as: `sha256:` and the hex SHA-256 of its key. */
export const erasedKey = (emailKey: string): string => PREFIX + sha256Hex(emailKey)

/**
 * Suppresses an erased address by its hash: an entry that named it (a bounce, a complaint, by
 * hand) is replaced, so that the list no longer holds the address.
 */
export async function suppressErased(db: Db, projectId: number, emailKey: string, now: number): Promise<void> {
  const hashed = erasedKey(emailKey)
  await db.deleteFrom('suppressions').where('project_id', '=', projectId).where('email_key', '=', emailKey).execute()
  await db
    .insertInto('suppressions')
    .values({ project_id: projectId, email: hashed, email_key: hashed, reason: 'erased', detail: null, created_at: now })
    .onConflict((oc) => oc.columns(['project_id', 'email_key']).doNothing())
    .execute()
}
