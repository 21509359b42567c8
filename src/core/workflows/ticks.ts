import type { Db } from '../../db/schema.ts'
import { projectContacts } from '../contacts/index.ts'
import { findSegment } from '../segments/index.ts'
import { compileContext, membersOf } from '../segments/membership.ts'
import { enterContacts } from './entry.ts'
import type { WorkflowRow } from './executions.repository.ts'
import { nextTick } from './trigger.ts'
import type { ScheduleTrigger } from './workflow.ts'

/** SCHEDULE workflows whose tick has come, or whose tick is still being entered. */
export const dueTicks = (db: Db, now: number) =>
  db
    .selectFrom('workflows')
    .select('id')
    .where('trigger_type', '=', 'SCHEDULE')
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('tick_at', 'is not', null), eb('next_tick_at', '<=', now)]))
    .execute()

/** Who a tick enters: the segment's members, or every subscribed contact. */
async function audienceOf(db: Db, workflow: WorkflowRow, config: ScheduleTrigger, now: number) {
  const segment = config.segmentId ? await findSegment(db, workflow.project_id, config.segmentId) : undefined
  if (segment) return membersOf(db, segment, await compileContext(db, workflow.project_id, now))
  return projectContacts(db, workflow.project_id).where('c.subscribed', '=', 1)
}

/**
 * Enters the next `limit` contacts of a workflow's current tick, in the caller's transaction,
 * moving the tick's cursor with them; once all are in, the next tick is set (ticks missed while
 * the server was down are not made up). Answers whether more of the tick remains.
 */
export async function enterTick(db: Db, workflowId: string, limit: number, now: number): Promise<boolean> {
  const workflow = await db.selectFrom('workflows').selectAll().where('id', '=', workflowId).executeTakeFirst()
  if (!workflow || workflow.enabled !== 1 || workflow.trigger_type !== 'SCHEDULE') return false
  const tickAt = workflow.tick_at ?? workflow.next_tick_at
  if (tickAt === null || tickAt > now) return false
  const config = JSON.parse(workflow.trigger_config) as ScheduleTrigger
  const audience = await audienceOf(db, workflow, config, now)
  const ids = (await audience.select('c.id').where('c.id', '>', workflow.tick_cursor ?? '').orderBy('c.id').limit(limit).execute()).map((r) => r.id)
  await enterContacts(db, workflow, ids, { name: 'schedule', data: { tick: new Date(tickAt).toISOString() }, at: tickAt }, now)
  const more = ids.length === limit
  await db
    .updateTable('workflows')
    .set(more ? { tick_at: tickAt, tick_cursor: ids.at(-1)! } : { tick_at: null, tick_cursor: null, next_tick_at: nextTick(config, Math.max(tickAt, now)) })
    .where('id', '=', workflow.id)
    .execute()
  return more
}
