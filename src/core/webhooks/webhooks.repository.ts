import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
import { textsIn } from '../../db/lists.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db, WebhookTable } from '../../db/schema.ts'
import { emailRows } from '../emails/email-queries.ts'
import { ALL_EVENTS } from './event-types.ts'
import { pageOf } from '../../db/paging.ts'

export type WebhookRow = Selectable<WebhookTable>

export const insertWebhook = (db: Db, row: Insertable<WebhookTable>): Promise<WebhookRow> =>
  db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow()

export const findWebhook = (db: Db, projectId: number, id: string): Promise<WebhookRow | undefined> =>
  db.selectFrom('webhooks').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export const updateWebhookRow = (db: Db, id: string, changes: Updateable<WebhookTable>): Promise<WebhookRow> =>
  db.updateTable('webhooks').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()

export const deleteWebhookRow = (db: Db, id: string) => db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst()

export async function countWebhooks(db: Db, projectId: number): Promise<number> {
  const { n } = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()
  return Number(n)
}

/** One page of the project's webhooks, newest first, with the total. */
export const pageWebhooks = (db: Db, projectId: number, page: number, pageSize: number) =>
  pageOf(db.selectFrom('webhooks').where('project_id', '=', projectId), page, pageSize)

/** The ids of the webhooks that take `type`: they asked for it, or for every type. */
/** The ids of the webhooks among `rows` that take `type`. */
export const takers = (rows: ReadonlyArray<Pick<WebhookRow, 'id' | 'events'>>, type: string): string[] =>
  rows.filter((row) => JSON.parse(row.events).some((event: string) => event === type || event === ALL_EVENTS)).map((row) => row.id)

// Prepared: every tracked contact, email event and delivery asks, and most projects have no
// webhook. The events are matched here rather than in SQL: unpacking the JSON list in the query
// made each run cost several times more, even when no row matched.
/** The ids of the project's enabled webhooks that take `type`. */
export const subscribedWebhooks = async (db: Db, projectId: number, type: string): Promise<string[]> =>
  takers(await selectEnabled(db, { projectId }), type)
const selectEnabled = prepared((db, p: { projectId: number }) =>
  db.selectFrom('webhooks').select(['id', 'events']).where('project_id', '=', p.projectId).where('enabled', '=', 1),
)

/** The enabled webhooks of the project of an email, found by the email's id. */
export const enabledForEmail = (db: Db, emailId: string) => selectEnabledForEmail(db, { emailId })
const selectEnabledForEmail = prepared((db, p: { emailId: string }) =>
  db
    .selectFrom(emailRows(db).as('e'))
    .innerJoin('webhooks as w', 'w.project_id', 'e.project_id')
    .select(['w.id', 'w.events'])
    .where('e.id', '=', p.emailId)
    .where('w.enabled', '=', 1),
)

/** What a call needs of its webhook: where, whether it is still enabled, and how to sign. */
export type CallTarget = Pick<WebhookRow, 'id' | 'url' | 'enabled' | 'signing_secret' | 'previous_secret' | 'previous_secret_until'>

/** The call targets of these webhooks, by id; a deleted one is missing. */
export async function findCallTargets(db: Db, ids: readonly string[]): Promise<Map<string, CallTarget>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('webhooks')
    .select(['id', 'url', 'enabled', 'signing_secret', 'previous_secret', 'previous_secret_until'])
    .where('id', 'in', textsIn(db, ids))
    .execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/**
 * Counts a call's outcome against its webhook: a success clears the failures in a row, a failure
 * adds one. Answers the count and whether the webhook is enabled; undefined once it is deleted.
 */
export const countOutcome = async (db: Db, id: string, ok: boolean) => (await updateFailures(db, { id, failed: ok ? 0 : 1 }))[0]
const updateFailures = prepared((db, p: { id: string; failed: number }) =>
  db
    .updateTable('webhooks')
    .set({ consecutive_failures: sql<number>`CASE WHEN ${p.failed} = 1 THEN consecutive_failures + 1 ELSE 0 END` })
    .where('id', '=', p.id)
    .returning(['consecutive_failures', 'enabled']),
)
