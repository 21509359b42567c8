import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { AppError, invalid, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { getProject } from '../projects/projects.service.ts'
import { requireEmail } from './accounts.service.ts'
import * as repo from './invitations.repository.ts'
import { insertMember } from './members.repository.ts'
import type { ProjectRole } from './roles.ts'
import { linkToken, readLinkToken } from './tokens.ts'

/** How long an invitation's link works. */
export const INVITATION_MS = 7 * 86_400_000

type InvitationRow = Awaited<ReturnType<typeof repo.insertInvitation>>

const toInvitation = (row: InvitationRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: isoTime(row.created_at),
  expiresAt: isoTime(row.expires_at),
})

/**
 * An invitation to the project for `email`, with the link that accepts it: shown this once. The
 * link's token is signed and names the invitation, which says who it is for and until when.
 */
export async function createInvitation(
  db: Db,
  secret: string,
  baseUrl: string,
  invite: { projectId: number; email: string; role: ProjectRole; invitedBy: string | null },
  now: number,
) {
  const { email, key } = requireEmail(invite.email)
  const row = await repo.insertInvitation(db, {
    id: newId(),
    project_id: invite.projectId,
    email,
    email_key: key,
    role: invite.role,
    invited_by: invite.invitedBy,
    created_at: now,
    expires_at: now + INVITATION_MS,
  })
  const token = linkToken(secret, 'invitation', [row.id], row.expires_at)
  return { ...toInvitation(row), link: `${baseUrl.replace(/\/+$/, '')}/console/invitation?token=${encodeURIComponent(token)}` }
}

export const listInvitations = async (db: Db, projectId: number, now: number) => (await repo.listPending(db, projectId, now)).map(toInvitation)

export async function revokeInvitation(db: Db, projectId: number, id: string) {
  if (!(await repo.deleteInvitation(db, projectId, id))) throw notFound(`Invitation ${id}`)
  return { id, success: true, message: 'Invitation revoked' }
}

const spent = () => invalid('token', 'this invitation is not valid: it has expired, was already used or revoked, or was not made by this server')

/** The invitation a token names while it can still be accepted; a 422 naming `token` otherwise. */
async function openInvitation(db: Db, secret: string, token: string, now: number) {
  const [id] = readLinkToken(secret, 'invitation', token, now) ?? []
  const row = id === undefined ? undefined : await repo.findInvitationLocked(db, id)
  if (!row || row.accepted_at !== null || row.expires_at <= now) throw spent()
  return row
}

/** What the console's invitation page shows before it is accepted. */
export async function describeInvitation(db: Db, secret: string, token: string, now: number) {
  const row = await openInvitation(db, secret, token, now)
  return { ...toInvitation(row), projectId: row.project_id, projectName: (await getProject(db, row.project_id)).name }
}

/**
 * Accepts an invitation for `account`, in the caller's transaction: it must be the account the
 * invitation was sent to, and the invitation is used up. Someone a member already keeps their role.
 */
export async function acceptInvitation(db: Db, secret: string, token: string, account: { id: string; emailKey: string }, now: number) {
  const row = await openInvitation(db, secret, token, now)
  if (row.email_key !== account.emailKey) {
    throw new AppError(403, 'FORBIDDEN', 'This invitation was sent to another email address', { suggestion: 'Sign in as the account it was sent to.' })
  }
  await repo.markAccepted(db, row.id, account.id, now)
  await insertMember(db, row.project_id, account.id, row.role, now)
  return { projectId: row.project_id, role: row.role }
}
