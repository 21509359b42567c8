import { sql } from 'kysely'
import { UNCLAIMED } from '../../db/claims.ts'
import type { Db } from '../../db/schema.ts'

/**
 * Why a disabled project's mail waits. It is also what tells the deliveries a disabled project
 * holds from those of a paused campaign: both are `paused`, and enabling the project releases
 * only its own.
 */
export const PROJECT_DISABLED_HOLD = 'Held: the project is disabled; it is sent once the project is enabled again'

// Spelled as the partial indexes are (deliveries_waiting, deliveries_paused), so SQLite uses them.
const WAITING_FOR_ATTEMPT = sql<boolean>`state IN ('queued', 'deferred', 'scheduled') AND state IN ('queued', 'deferred')`
const PAUSED = sql<boolean>`state = 'paused'`

/**
 * Holds the project's mail that waits for an attempt: `paused`, out of the delivery loop's sight,
 * with the reason as its last response. Scheduled mail stays scheduled (it can still be
 * cancelled); if its time comes while the project is disabled, its attempt holds it.
 */
export const holdProjectMail = (db: Db, projectId: number, now: number) =>
  db
    .updateTable('deliveries')
    .set({ state: 'paused', last_response: PROJECT_DISABLED_HOLD, updated_at: now })
    .where(WAITING_FOR_ATTEMPT)
    .where('project_id', '=', projectId)
    .execute()

/**
 * Sends the project's held mail on: queued again, its expiry moved on by the time it was held,
 * so that a project disabled for longer than mail is retried bounces none of it.
 */
export const releaseProjectMail = (db: Db, projectId: number, now: number) =>
  db
    .updateTable('deliveries')
    .set((eb) => ({
      state: 'queued',
      expires_at: eb('expires_at', '+', eb(eb.val(now), '-', eb.ref('updated_at'))),
      last_response: null,
      updated_at: now,
    }))
    .where(PAUSED)
    .where('project_id', '=', projectId)
    .where('last_response', '=', PROJECT_DISABLED_HOLD)
    .execute()

/**
 * A claimed delivery whose project turned out to be disabled when its attempt began: held with
 * the others, its attempt not counted. Should the project have been enabled since, it goes back
 * to the queue instead, so that nothing is left held with no one to release it.
 */
export async function holdClaimedDelivery(db: Db, delivery: { id: number; project_id: number; claimed_by: string | null }, now: number) {
  const project = await db.selectFrom('projects').select('disabled').where('id', '=', delivery.project_id).executeTakeFirst()
  const held = project?.disabled === 1
  await db
    .updateTable('deliveries')
    .set((eb) => ({
      state: held ? 'paused' : 'queued',
      attempts: eb('attempts', '-', 1),
      last_response: held ? PROJECT_DISABLED_HOLD : eb.ref('last_response'),
      ...(!held && { next_attempt_at: now }),
      updated_at: now,
      ...UNCLAIMED,
    }))
    .where('id', '=', delivery.id)
    .where('claimed_by', '=', delivery.claimed_by)
    .execute()
}
