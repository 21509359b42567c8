import { lockName } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'
import { conflict } from '../../lib/errors.ts'
import { sha256Hex } from '../../lib/crypto.ts'

const DAY = 24 * 60 * 60_000

/** JSON with object keys in order: the same body however its keys were sent. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(value)

export const requestHash = (route: string, body: unknown) => sha256Hex(`${route}\n${canonical(body)}`)

/**
 * Runs `work` once per key and request: the same key and body within 24 h gets the first answer
 * again and does nothing; the same key with another body is a 409. Runs in the caller's
 * transaction, so the answer is stored with the work it describes. The key is locked first: the
 * same request sent again to another process while the first runs waits for its answer.
 */
export async function once<T>(db: Db, projectId: number, key: string, hash: string, now: number, work: () => Promise<T>): Promise<T> {
  await lockName(db, `idempotency ${projectId} ${key}`)
  const seen = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('key', '=', key)
    .executeTakeFirst()
  if (seen && seen.created_at > now - DAY) {
    if (seen.request_hash !== hash) throw conflict('This Idempotency-Key was used with another request', 'Use a new key for a new request.')
    return JSON.parse(seen.response) as T
  }
  const result = await work()
  await db
    .insertInto('idempotency_keys')
    .values({ project_id: projectId, key, request_hash: hash, response: JSON.stringify(result), created_at: now })
    .onConflict((oc) => oc.columns(['project_id', 'key']).doUpdateSet({ request_hash: hash, response: JSON.stringify(result), created_at: now }))
    .execute()
  return result
}
