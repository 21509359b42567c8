import { sql } from 'kysely'
import { dialectOf } from '../../db/client.ts'
import { commitOrderOf, committedAfter, cursorAt, readingOrder, type EventCursor } from '../../db/event-cursors.ts'
import type { Db } from '../../db/schema.ts'
import type { CompileContext } from './compile.ts'
import { segmentRefs } from './condition.ts'
import { compileContext, conditionOf, membersOf } from './membership.ts'
import { textsIn } from '../../db/lists.ts'
import { emailEventsWithEmail } from '../emails/index.ts'
import { recordEvents } from '../events/record.ts'
import { trackedSegments, type SegmentRow } from './segments.repository.ts'

/*
 * Membership tracking. A tracked segment's members at its last evaluation are rows of
 * segment_memberships; an evaluation that finds a contact newly in or out changes the row and
 * records the event segment.<id>.entry or segment.<id>.exit, in the caller's transaction.
 */

export type TrackedSegment = Pick<SegmentRow, 'id' | 'name' | 'project_id' | 'type' | 'condition'>

/** The contacts in `scope` (all of the project's when absent) who are members now. */
function members(db: Db, segment: TrackedSegment, context: CompileContext, scope?: readonly string[]) {
  const query = membersOf(db, segment, context)
  return scope ? query.where('c.id', 'in', textsIn(db, scope)) : query
}

/** Compares the members now with the recorded ones, within `scope`; records entries and exits. */
async function applyChanges(db: Db, segment: TrackedSegment, context: CompileContext, now: number, scope?: readonly string[]): Promise<void> {
  let leaving = db
    .deleteFrom('segment_memberships')
    .where('segment_id', '=', segment.id)
    .where('contact_id', 'not in', members(db, segment, context, scope).select('c.id'))
  if (scope) leaving = leaving.where('contact_id', 'in', textsIn(db, scope))
  const left = await leaving.returning('contact_id').execute()
  const entered = await enter(db, segment, context, now, scope).returning('contact_id').execute()
  await recordChanges(db, segment, 'exit', left, now)
  await recordChanges(db, segment, 'entry', entered, now)
}

/** Records the current members that are not recorded yet; those that are keep their row. */
function enter(db: Db, segment: TrackedSegment, context: CompileContext, now: number, scope?: readonly string[]) {
  const rows = members(db, segment, context, scope).select([sql<string>`CAST(${segment.id} AS text)`.as('segment_id'), 'c.id as contact_id', sql<number>`CAST(${now} AS bigint)`.as('entered_at')])
  return db
    .insertInto('segment_memberships')
    .columns(['segment_id', 'contact_id', 'entered_at'])
    .expression(rows)
    .onConflict((oc) => oc.doNothing())
}

async function recordChanges(db: Db, segment: TrackedSegment, change: 'entry' | 'exit', rows: Array<{ contact_id: string }>, now: number) {
  const data = JSON.stringify({ segmentId: segment.id, segmentName: segment.name })
  await recordEvents(db, rows.map((row) => ({ project_id: segment.project_id, contact_id: row.contact_id, name: `segment.${segment.id}.${change}`, data, created_at: now })))
}

/** What compiling the tracked segments needs: the project's other segments only when they name some. */
async function contextFor(db: Db, projectId: number, tracked: readonly TrackedSegment[], now: number): Promise<CompileContext> {
  const namesSegments = tracked.some((segment) => {
    const condition = conditionOf(segment)
    return condition !== null && segmentRefs(condition).length > 0
  })
  return namesSegments ? compileContext(db, projectId, now) : { dialect: dialectOf(db), projectId, now, segments: new Map() }
}

/**
 * Re-evaluates every tracked segment of the project for these contacts only, and records who
 * entered and who left. Runs after each write that can change a contact's membership (a tracked
 * event, a contact saved, a listing changed), in the same transaction: src/core/reactions.ts calls
 * it. A project without tracked segments costs one indexed lookup.
 */
export async function refreshMemberships(db: Db, projectId: number, contactIds: readonly string[], now: number): Promise<void> {
  if (contactIds.length === 0) return
  const tracked = await trackedSegments(db, { projectId })
  if (tracked.length === 0) return
  const context = await contextFor(db, projectId, tracked, now)
  for (const segment of tracked) await applyChanges(db, segment, context, now, contactIds)
}

/**
 * Brings one tracked segment's memberships up to date over all its project's contacts. As a
 * `baseline` (tracking just turned on) the members now are recorded without entry events;
 * otherwise (its condition changed) the differences are recorded as entries and exits.
 */
export async function refreshSegment(db: Db, segment: TrackedSegment, now: number, options: { baseline?: boolean } = {}): Promise<void> {
  const context = await compileContext(db, segment.project_id, now)
  if (!options.baseline) return applyChanges(db, segment, context, now)
  await clearMemberships(db, segment.id)
  await enter(db, segment, context, now).execute()
}

/** Forgets a segment's recorded members: its tracking was turned off. */
export async function clearMemberships(db: Db, segmentId: string): Promise<void> {
  await db.deleteFrom('segment_memberships').where('segment_id', '=', segmentId).execute()
}

/**
 * Re-evaluates one tracked segment for some of its contacts, reading the segment afresh: it may
 * have been changed, untracked or deleted since those contacts were picked.
 */
export async function refreshSegmentContacts(db: Db, segmentId: string, contactIds: readonly string[], now: number): Promise<void> {
  const segment = await db.selectFrom('segments').selectAll().where('id', '=', segmentId).where('track_membership', '=', 1).executeTakeFirst()
  if (!segment || contactIds.length === 0) return
  await applyChanges(db, segment, await compileContext(db, segment.project_id, now), now, contactIds)
}

/**
 * The contacts whose membership differs from the recorded one: members now who are not recorded,
 * and recorded ones who are no longer members. Read-only, so it can run outside the writer.
 */
export async function membershipDrift(db: Db, segment: TrackedSegment, context: CompileContext): Promise<string[]> {
  const entering = members(db, segment, context)
    .select('c.id as id')
    .where(({ exists, not, selectFrom }) => not(exists(selectFrom('segment_memberships as ms').select('ms.contact_id').where('ms.segment_id', '=', segment.id).whereRef('ms.contact_id', '=', 'c.id'))))
  const leaving = db
    .selectFrom('segment_memberships as ms')
    .select('ms.contact_id as id')
    .where('ms.segment_id', '=', segment.id)
    .where('ms.contact_id', 'not in', members(db, segment, context).select('c.id'))
  return (await entering.unionAll(leaving).execute()).map((row) => row.id)
}

/** Whether any segment of any project tracks its membership. */
export const anyTracked = async (db: Db) => (await db.selectFrom('segments').select('id').where('track_membership', '=', 1).limit(1).executeTakeFirst()) !== undefined

/** Every tracked dynamic segment: those whose membership may move with time. */
export const trackedDynamicSegments = (db: Db) => db.selectFrom('segments').selectAll().where('track_membership', '=', 1).where('type', '=', 'DYNAMIC').execute()

/**
 * The contacts whose emails got events committed after `after`, by project, up to `limit` events
 * read: with the cursor of the last event read, and whether more may follow.
 */
export async function contactsWithActivity(db: Db, after: EventCursor, limit: number): Promise<{ byProject: Map<number, string[]>; cursor: EventCursor; more: boolean }> {
  const rows = await emailEventsWithEmail(db)
    .select(['ev.id', 'em.project_id', 'em.contact_id', commitOrderOf(db, 'ev')])
    .where(committedAfter(db, 'ev', after))
    .orderBy(readingOrder(db, 'ev'))
    .limit(limit)
    .execute()
  return { byProject: contactsByProject(rows), cursor: rows.length > 0 ? cursorAt(rows.at(-1)!) : after, more: rows.length === limit }
}

function contactsByProject(rows: ReadonlyArray<{ project_id: number; contact_id: string | null }>): Map<number, string[]> {
  const byProject = new Map<number, Set<string>>()
  for (const row of rows) {
    if (row.contact_id) (byProject.get(row.project_id) ?? byProject.set(row.project_id, new Set()).get(row.project_id)!).add(row.contact_id)
  }
  return new Map([...byProject].map(([projectId, ids]) => [projectId, [...ids]]))
}
