import type { ProjectInvitationTable } from '../../db/accounts-schema.ts'
import { lockedRow } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'

export const insertInvitation = (db: Db, row: Omit<ProjectInvitationTable, 'accepted_at' | 'accepted_by'>) =>
  db.insertInto('project_invitations').values({ ...row, accepted_at: null, accepted_by: null }).returningAll().executeTakeFirstOrThrow()

/** The invitation, locked until the transaction ends: two acceptances of one link run one after the other. */
export const findInvitationLocked = (db: Db, id: string) =>
  lockedRow(db, db.selectFrom('project_invitations').selectAll().where('id', '=', id)).executeTakeFirst()

/** Invitations not yet accepted nor expired. */
export const listPending = (db: Db, projectId: number, now: number) =>
  db
    .selectFrom('project_invitations')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute()

export const markAccepted = (db: Db, id: string, accountId: string, now: number) =>
  db.updateTable('project_invitations').set({ accepted_at: now, accepted_by: accountId }).where('id', '=', id).execute()

export const deleteInvitation = (db: Db, projectId: number, id: string) =>
  db.deleteFrom('project_invitations').where('project_id', '=', projectId).where('id', '=', id).returning('id').executeTakeFirst()
