import { sql, type SelectQueryBuilder } from 'kysely'
import type { DB, Db, DeliveryState } from '../../db/schema.ts'
import { PENDING_STATES } from './admin.ts'
import { WAITING } from './queue.repository.ts'

/*
 * What the runtimes read of the queue to shape it and report on it: the metrics' depth by state,
 * the waiting destination domains (shaping counts them by site), and what is left of a campaign
 * by destination domain (the warm-up forecast). Each read is
 * written here once, next to the statements that write the rows it reads.
 */

/**
 * Deliveries by state, read in one statement that reads only the partial indexes of waiting and
 * paused rows, never the history of settled ones, and at most `cap` waiting rows (and as many
 * paused ones).
 */
export function countPendingDeliveries(db: Db, cap: number) {
  const waiting = db.selectFrom('deliveries').select('state').where(WAITING).limit(cap).as('waiting')
  // Spelled as the partial index deliveries_paused is (a bound parameter would not match it).
  const paused = db.selectFrom('deliveries').select('id').where(sql<boolean>`state = 'paused'`).limit(cap).as('paused')
  return db
    .selectFrom(waiting)
    .select(['waiting.state', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('waiting.state')
    .unionAll(db.selectFrom(paused).select([sql<DeliveryState>`'paused'`.as('state'), (eb) => eb.fn.countAll<number>().as('count')]))
    .execute()
}

/**
 * The destination domains of waiting deliveries (queued, deferred, scheduled), one row each, at
 * most `cap` of them; of one project, when given. A query, for shaping to count by site.
 */
export function waitingDomains(db: Db, cap: number, projectId?: number) {
  let waiting = db.selectFrom('deliveries').select('recipient_domain').where(WAITING)
  if (projectId !== undefined) waiting = waiting.where('project_id', '=', projectId)
  return waiting.limit(cap)
}

/** Emails named by a query of their ids: a campaign's (src/core/campaigns answers which). */
export type EmailIds = SelectQueryBuilder<DB, any, { email_id: string | null }>

/** The pending deliveries of the emails `emailIds` names, counted by destination domain. */
export async function pendingByDomain(db: Db, emailIds: EmailIds): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('deliveries')
    .select(['recipient_domain as domain', (eb) => eb.fn.countAll<number>().as('count')])
    .where('email_id', 'in', emailIds)
    .where('state', 'in', PENDING_STATES)
    .groupBy('recipient_domain')
    .execute()
  return new Map(rows.map((row) => [row.domain, Number(row.count)]))
}
