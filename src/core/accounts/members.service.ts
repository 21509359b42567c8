import { lockName } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { AppError, notFound } from '../../lib/errors.ts'
import { createProject } from '../projects/projects.service.ts'
import * as repo from './members.repository.ts'
import type { ProjectRole } from './roles.ts'

type MemberRow = Awaited<ReturnType<typeof repo.listMembers>>[number]

const toMember = (row: MemberRow) => ({
  accountId: row.account_id,
  email: row.email,
  role: row.role,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

export const listMembers = async (db: Db, projectId: number) => (await repo.listMembers(db, projectId)).map(toMember)

/**
 * The account's projects with its role in each: the console's project switcher. The instance
 * owner's are every project, as owner; `member: false` for those it is no member of (made with
 * the CLI, or by others).
 */
export async function listMyProjects(db: Db, accountId: string, instanceOwner = false) {
  const rows = instanceOwner ? await repo.listAllProjectsFor(db, accountId) : await repo.listAccountProjects(db, accountId)
  return rows.map((row) => ({ id: row.id, name: row.name, disabled: row.disabled === 1, sandbox: row.sandbox === 1, role: instanceOwner ? 'owner' : row.role!, member: row.role !== null }))
}

/** A project made by a signed-in person, who becomes its owner; its first keys are shown this once. */
export async function createOwnedProject(db: Db, accountId: string, name: string, now: number, options: { sandbox?: boolean } = {}) {
  const project = await createProject(db, name, now, options)
  await repo.insertMember(db, project.id, accountId, 'owner', now)
  return { ...project, role: 'owner' as const }
}

/**
 * The account's role in the project, with the project's standing; undefined when it is no member.
 * The instance owner acts as owner of every project, a member of it or not: it can open any and
 * add members to any.
 */
export async function membershipOf(db: Db, accountId: string, projectId: number, instanceOwner = false) {
  if (!instanceOwner) return repo.findMembership(db, accountId, projectId)
  const project = await repo.findProjectStanding(db, projectId)
  return project && { ...project, role: 'owner' as ProjectRole }
}

export const addMember = repo.insertMember

/**
 * A change that would leave the project without an owner is refused: the owners' lock makes two
 * such changes at once run one after the other, so the second sees the first.
 */
async function keepAnOwner(db: Db, projectId: number, accountId: string, change: () => Promise<unknown>) {
  await lockName(db, `project-owners:${projectId}`)
  const current = (await repo.listMembers(db, projectId)).find((m) => m.account_id === accountId)
  if (!current) throw notFound(`Member ${accountId}`)
  const result = await change()
  if (current.role === 'owner' && (await repo.countOwners(db, projectId)) === 0) {
    throw new AppError(409, 'CONFLICT', 'A project keeps at least one owner', { suggestion: 'Make another member owner first.' })
  }
  return result
}

export async function changeRole(db: Db, projectId: number, accountId: string, role: ProjectRole, now: number) {
  await keepAnOwner(db, projectId, accountId, () => repo.updateRole(db, projectId, accountId, role, now))
  return (await listMembers(db, projectId)).find((m) => m.accountId === accountId)!
}

export async function removeMember(db: Db, projectId: number, accountId: string) {
  await keepAnOwner(db, projectId, accountId, () => repo.deleteMember(db, projectId, accountId))
  return { accountId, success: true, message: 'Removed from the project' }
}
