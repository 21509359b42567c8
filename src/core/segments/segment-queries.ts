import type { Db } from '../../db/schema.ts'

// The segments table as other modules may read it (a workflow's references), so that it is named
// in its own module alone (src/db/owners.ts).

/** Whether the project's segment of this id tracks its membership; undefined when there is no such segment. */
export async function segmentTracksMembership(db: Db, projectId: number, id: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('segments').select('track_membership').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
  return row && row.track_membership === 1
}
