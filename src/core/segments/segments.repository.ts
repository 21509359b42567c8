import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import { textsIn } from '../../db/lists.ts'
import { prepared } from '../../db/prepared.ts'
import type { Db, SegmentTable } from '../../db/schema.ts'

export type SegmentRow = Selectable<SegmentTable>


export const insertSegment = (db: Db, row: Insertable<SegmentTable>) => db.insertInto('segments').values(row).returningAll().executeTakeFirstOrThrow()

export const findSegment = (db: Db, projectId: number, id: string) =>
  db.selectFrom('segments').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export const listSegments = (db: Db, projectId: number) =>
  db.selectFrom('segments').selectAll().where('project_id', '=', projectId).orderBy('id', 'desc').execute()

export const updateSegment = (db: Db, id: string, changes: Updateable<SegmentTable>) =>
  db.updateTable('segments').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()

export const deleteSegment = (db: Db, projectId: number, id: string) =>
  db.deleteFrom('segments').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

/**
 * The project's tracked segments: asked on every tracked event, so compiled once, and written as
 * the partial index `segments_tracked` is (a parameter would keep SQLite from using it).
 */
export const trackedSegments = prepared((db, p: { projectId: number }) =>
  db.selectFrom('segments').selectAll().where('project_id', '=', p.projectId).where(sql<boolean>`track_membership = 1`),
)

/** Lists contacts as members; those already listed keep their row. */
export async function addMembers(db: Db, segmentId: string, contactIds: readonly string[], now: number): Promise<void> {
  const rows = contactIds.map((contactId) => ({ segment_id: segmentId, contact_id: contactId, created_at: now }))
  await insertMany(db, 'segment_members', ['segment_id', 'contact_id', 'created_at'], rows, { then: sql`ON CONFLICT DO NOTHING` })
}

/** Takes contacts off the list; answers those that were on it. */
export async function removeMembers(db: Db, segmentId: string, contactIds: readonly string[]): Promise<string[]> {
  if (contactIds.length === 0) return []
  const rows = await db.deleteFrom('segment_members').where('segment_id', '=', segmentId).where('contact_id', 'in', textsIn(db, contactIds)).returning('contact_id').execute()
  return rows.map((row) => row.contact_id)
}

/** The segments the contact is listed in (STATIC segments and books), with when it was listed. */
export const listingsOf = (db: Db, contactId: string) =>
  db.selectFrom('segment_members').select(['segment_id', 'created_at']).where('contact_id', '=', contactId).execute()

/** The tracked segments the contact is in at their last evaluation, with when it entered. */
export const trackedMembershipsOf = (db: Db, contactId: string) =>
  db.selectFrom('segment_memberships').select(['segment_id', 'entered_at']).where('contact_id', '=', contactId).execute()

/** Takes the contact off every listing and tracked membership (an erasure). */
export async function deleteMembershipsOf(db: Db, contactId: string): Promise<void> {
  await db.deleteFrom('segment_members').where('contact_id', '=', contactId).execute()
  await db.deleteFrom('segment_memberships').where('contact_id', '=', contactId).execute()
}

export const listedMemberCount = async (db: Db, segmentId: string): Promise<number> =>
  Number((await db.selectFrom('segment_members').select((eb) => eb.fn.countAll<number>().as('n')).where('segment_id', '=', segmentId).executeTakeFirstOrThrow()).n)

/** Those of `contactIds` listed in the segment. */
export async function listedAmong(db: Db, segmentId: string, contactIds: readonly string[]): Promise<string[]> {
  if (contactIds.length === 0) return []
  const rows = await db.selectFrom('segment_members').select('contact_id').where('segment_id', '=', segmentId).where('contact_id', 'in', textsIn(db, contactIds)).execute()
  return rows.map((row) => row.contact_id)
}

/** Which of `segmentIds` list the contact. */
export async function listsOf(db: Db, contactId: string, segmentIds: readonly string[]): Promise<Set<string>> {
  if (segmentIds.length === 0) return new Set()
  const rows = await db.selectFrom('segment_members').select('segment_id').where('contact_id', '=', contactId).where('segment_id', 'in', textsIn(db, segmentIds)).execute()
  return new Set(rows.map((row) => row.segment_id))
}
