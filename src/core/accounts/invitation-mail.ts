import type { Db } from '../../db/schema.ts'
import { escapeHtml } from '../../lib/html.ts'
import { findAccount } from './accounts.repository.ts'

/** What an invitation's email says. */
export interface InvitationFacts {
  projectName: string
  role: string
  link: string
  /** Who invited, when a person did (an API key invites as no one). */
  invitedBy: string | null
  expiresAt: string
}

/** The invitation as an email: a subject, a plain text and an HTML body with the link. Pure. */
export function invitationMail(facts: InvitationFacts) {
  const who = facts.invitedBy ?? 'Someone'
  const until = new Date(facts.expiresAt).toUTCString()
  const subject = `${who} invited you to ${facts.projectName} on Mailstead`.slice(0, 200)
  const text = [
    `${who} invited you to join the project "${facts.projectName}" on Mailstead as ${facts.role}.`,
    '',
    'Open this link to accept:',
    facts.link,
    '',
    `The link works once, until ${until}. If you did not expect this invitation, ignore this email.`,
  ].join('\n')
  const html = [
    `<p>${escapeHtml(who)} invited you to join the project <strong>${escapeHtml(facts.projectName)}</strong> on Mailstead as ${escapeHtml(facts.role)}.</p>`,
    `<p><a href="${escapeHtml(facts.link)}">Accept the invitation</a></p>`,
    `<p>The link works once, until ${escapeHtml(until)}. If you did not expect this invitation, ignore this email.</p>`,
  ].join('\n')
  return { subject, text, html }
}

/** The email of an invitation just made, to its invitee, naming the account that invited (if a person did). */
export async function invitationMessage(db: Db, invitation: { email: string; role: string; link: string; expiresAt: string }, projectName: string, invitedBy: string | null) {
  const inviter = invitedBy === null ? undefined : await findAccount(db, invitedBy)
  return { to: invitation.email, ...invitationMail({ projectName, role: invitation.role, link: invitation.link, invitedBy: inviter?.email ?? null, expiresAt: invitation.expiresAt }) }
}
