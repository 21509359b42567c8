import type { Db } from '../../db/schema.ts'
import { prepared } from '../../db/prepared.ts'
import { projectIds, projectRows } from '../projects/project-queries.ts'
import type { ProjectRole } from './roles.ts'

export const insertMember = (db: Db, projectId: number, accountId: string, role: ProjectRole, now: number) =>
  db
    .insertInto('project_members')
    .values({ project_id: projectId, account_id: accountId, role, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['project_id', 'account_id']).doNothing())
    .returningAll()
    .executeTakeFirst()

/** Makes the account owner of every project there is: the first account, the server's operator. */
export const insertOwnerOfAll = (db: Db, accountId: string, now: number) =>
  db
    .insertInto('project_members')
    .columns(['project_id', 'account_id', 'role', 'created_at', 'updated_at'])
    .expression(
      db.selectFrom(projectIds(db).as('p')).select((s) => [s.ref('p.id').as('project_id'), s.val(accountId).as('account_id'), s.val('owner').as('role'), s.val(now).as('created_at'), s.val(now).as('updated_at')]),
    )
    .execute()

/** The account's role in the project, with the project's standing: what a session's request reads. */
export const findMembership = (db: Db, accountId: string, projectId: number) => selectMembership(db, { accountId, projectId }).then((rows) => rows[0])

const selectMembership = prepared((db, p: { accountId: string; projectId: number }) =>
  db
    .selectFrom('project_members as m')
    .innerJoin(projectRows(db).as('p'), 'p.id', 'm.project_id')
    .select(['m.role', 'p.id', 'p.name', 'p.disabled', 'p.rate_limit_per_minute'])
    .where('m.account_id', '=', p.accountId)
    .where('m.project_id', '=', p.projectId),
)

export const listMembers = (db: Db, projectId: number) =>
  db
    .selectFrom('project_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'a.email', 'm.role', 'm.created_at', 'm.updated_at'])
    .where('m.project_id', '=', projectId)
    .orderBy('m.created_at')
    .orderBy('a.email')
    .execute()

/** Every project with the account's role where it is a member (null where not): what the instance owner's switcher lists. */
export const listAllProjectsFor = (db: Db, accountId: string) =>
  db
    .selectFrom(projectRows(db).as('p'))
    .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'p.id').on('m.account_id', '=', accountId))
    .select(['p.id', 'p.name', 'p.disabled', 'p.sandbox', 'm.role'])
    .orderBy('p.id')
    .execute()

/** The project's standing for the instance owner, who needs no membership to open it. */
export const findProjectStanding = (db: Db, projectId: number) =>
  db.selectFrom(projectRows(db).as('p')).select(['p.id', 'p.name', 'p.disabled', 'p.rate_limit_per_minute']).where('p.id', '=', projectId).executeTakeFirst()

export const listAccountProjects = (db: Db, accountId: string) =>
  db
    .selectFrom('project_members as m')
    .innerJoin(projectRows(db).as('p'), 'p.id', 'm.project_id')
    .select(['p.id', 'p.name', 'p.disabled', 'p.sandbox', 'm.role'])
    .where('m.account_id', '=', accountId)
    .orderBy('p.id')
    .execute()

export const updateRole = (db: Db, projectId: number, accountId: string, role: ProjectRole, now: number) =>
  db
    .updateTable('project_members')
    .set({ role, updated_at: now })
    .where('project_id', '=', projectId)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst()

export const deleteMember = (db: Db, projectId: number, accountId: string) =>
  db.deleteFrom('project_members').where('project_id', '=', projectId).where('account_id', '=', accountId).returningAll().executeTakeFirst()

export const countOwners = async (db: Db, projectId: number) =>
  Number((await db.selectFrom('project_members').select((s) => s.fn.countAll().as('n')).where('project_id', '=', projectId).where('role', '=', 'owner').executeTakeFirstOrThrow()).n)
