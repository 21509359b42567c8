import { Elysia, t, type TSchema } from 'elysia'
import { invitationMessage } from '../../core/accounts/invitation-mail.ts'
import { createInvitation, listInvitations, revokeInvitation } from '../../core/accounts/invitations.service.ts'
import { changeRole, listMembers, removeMember } from '../../core/accounts/members.service.ts'
import { KEY_SCOPES, readExpiry } from '../../core/projects/keys.ts'
import * as projects from '../../core/projects/projects.service.ts'
import { setProjectSandbox } from '../../core/emails/sandbox-switch.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import { writeAt, type HttpDeps } from '../deps.ts'
import { authErrors, EmailField, ErrorSchema, numericId, oneOf, strictObject } from '../schemas.ts'
import { ROLE_VALUES } from './account-schemas.ts'

const Time = t.String({ format: 'date-time' })

const ProjectSchema = t.Object({
  id: t.Integer(),
  name: t.String(),
  disabled: t.Boolean(),
  sandbox: t.Boolean({ description: 'Its mail is simulated at the delivery step and never leaves the server' }),
  rateLimitPerMinute: t.Union([t.Integer(), t.Null()], { description: "Set by the server's operator (mailstead project set-rate-limit)" }),
  defaultSender: t.Union([t.String(), t.Null()]),
  sendRatePerSecond: t.Union([t.Number(), t.Null()], { description: "Emails per second; null for the server's rate, which is also the most a project may set here" }),
  brandColor: t.Union([t.String(), t.Null()], { description: 'The colour (#rrggbb) of the pages its recipients open: preferences, sign-up forms, confirmation' }),
  createdAt: Time,
  updatedAt: Time,
}, { title: 'Project' })

const OptionalTime = (description: string) => t.Union([Time, t.Null()], { description })
const KeySchema = t.Object({
  id: t.Integer(),
  projectId: t.Integer(),
  name: t.String(),
  type: t.UnionEnum(['secret', 'public'], { description: 'secret (sk_) or public (pk_, POST /v1/track only)' }),
  scope: t.UnionEnum(['full', 'sending', 'read'], { description: 'full: everything; sending: send email (HTTP and the SMTP relay) and nothing else; read: GET requests only' }),
  key: t.String({ description: 'Only its first characters, then an ellipsis' }),
  prefix: t.String({ description: 'Its first 11 characters, which the list shows' }),
  createdAt: Time,
  expiresAt: OptionalTime('Refused (401) from then on; null for never'),
  lastUsedAt: OptionalTime('Written at most once a minute; null if never used'),
  revokedAt: OptionalTime('null while it works'),
}, { title: 'ApiKey' })
const MemberSchema = t.Object({ accountId: t.String(), email: t.String(), role: t.String(), createdAt: Time, updatedAt: Time }, { title: 'Member' })
const InvitationSchema = t.Object({ id: t.String(), email: t.String(), role: t.String(), createdAt: Time, expiresAt: Time }, { title: 'Invitation' })
const Done = <T extends TSchema>(id: T) => t.Object({ id, success: t.Boolean(), message: t.String() })
const RoleField = oneOf(ROLE_VALUES, 'owner: everything; admin: everything but members and deleting the project; member: sending and content, no keys, domains, webhooks or settings; viewer: read only')

const errors = { ...authErrors, 404: ErrorSchema, 409: ErrorSchema }

/**
 * The project the caller acts on (its key's, or the X-Project-Id of a session), its keys, members
 * and invitations. What each role may change is enforced by requireKey (src/http/permissions.ts).
 */
export const projectRoutes = (deps: HttpDeps) => {
  const write = writeAt(deps)
  return new Elysia({ prefix: '/api/v1' })
    .use(requireKey(deps))
    .get('/project', async ({ caller }) => ({ ...(await projects.getProject(deps.db, caller.project.id)), role: caller.role }), {
      response: { 200: t.Composite([ProjectSchema, t.Object({ role: t.String({ description: "The caller's role; admin for an API key" }) })]), ...errors },
      detail: { summary: 'The project, and your role in it', tags: ['Projects'] },
    })
    .patch(
      '/project',
      ({ body, caller }) => {
        if (Object.keys(body).length === 0) throw invalid('body', 'give at least one of name, defaultSender, sendRatePerSecond, sandbox, brandColor')
        // A key is bound to the way its project sends: a sandbox's key must never make real mail,
        // nor a real project's key simulated mail. People switch it (the console, or the CLI).
        if (body.sandbox !== undefined && caller.keyType !== 'session') {
          throw new AppError(403, 'FORBIDDEN', 'An API key cannot switch its project in or out of the sandbox', {
            suggestion: 'Switch it in the console (Settings) or with mailstead project set-sandbox ID on|off.',
          })
        }
        const rate = body.sendRatePerSecond
        // The server-wide rate is the operator's: a project may go slower, never faster (the CLI may).
        const ceiling = deps.config.sendRatePerSecond
        if (rate !== undefined && rate !== null && rate > ceiling) throw invalid('sendRatePerSecond', `must be at most the server's ${ceiling} emails per second`)
        return write(async (trx, at) => {
          if (body.name !== undefined) await projects.renameProject(trx, caller.project.id, body.name, at)
          if (body.defaultSender !== undefined) await projects.setDefaultSender(trx, caller.project.id, body.defaultSender, at)
          if (rate !== undefined) await projects.setSendRate(trx, caller.project.id, rate, at)
          if (body.brandColor !== undefined) await projects.setBrandColor(trx, caller.project.id, body.brandColor, at)
          if (body.sandbox !== undefined) await setProjectSandbox(trx, caller.project.id, body.sandbox, at)
          return projects.getProject(trx, caller.project.id)
        })
      },
      {
        body: strictObject({
          name: t.Optional(t.String({ maxLength: 100 })),
          defaultSender: t.Optional(t.Union([t.String({ maxLength: 254 }), t.Null()], { description: 'The From of sends that name none; null removes it' })),
          sendRatePerSecond: t.Optional(
            t.Union([t.Integer({ minimum: 1, error: 'must be a whole number of emails per second, 1 or more', 'x-field': 'sendRatePerSecond' }), t.Null()], {
              description: "Emails per second, at most the server's rate; null for the server's rate",
            }),
          ),
          brandColor: t.Optional(t.Union([t.String({ maxLength: 7 }), t.Null()], { description: 'The colour (#rrggbb) of the pages its recipients open; null for none' })),
          sandbox: t.Optional(
            t.Boolean({ description: 'Simulate this project\'s mail instead of sending it; a signed-in owner or admin only (an API key gets 403); false is refused (409) while sandbox mail from unverified domains is in flight' }),
          ),
        }),
        response: { 200: ProjectSchema, ...errors },
        detail: { summary: "Change the project's settings (owner, admin; sandbox by a signed-in person only)", tags: ['Projects'] },
      },
    )
    .delete('/project', ({ caller }) => write((trx) => projects.deleteProject(trx, caller.project.id)), {
      response: { 200: Done(t.Integer()), ...errors },
      detail: { summary: 'Delete the project and everything in it (owner)', tags: ['Projects'] },
    })
    .get('/keys', ({ caller }) => projects.listKeys(deps.db, caller.project.id), {
      response: { 200: t.Array(KeySchema), ...errors },
      detail: { summary: "The project's API keys, never whole", tags: ['Projects'] },
    })
    .post(
      '/keys',
      ({ body, caller, set }) => {
        set.status = 201
        const expiresAt = body.expiresAt === undefined || body.expiresAt === null ? null : readExpiry(body.expiresAt)
        if (expiresAt === undefined) throw invalid('expiresAt', 'must be a date, or a date and time with its zone, in ISO 8601: for example 2027-01-31 or 2027-01-31T09:00:00Z')
        const options = { name: body.name, scope: body.scope ?? 'full', expiresAt }
        return write((trx, at) => projects.createKey(trx, caller.project.id, body.type ?? 'secret', at, options))
      },
      {
        body: strictObject({
          name: t.String({ maxLength: 100, description: 'What the key is for, as the list shows it: "Production server"' }),
          type: t.Optional(oneOf(['secret', 'public'], 'secret (the default) or public (pk_, for POST /v1/track only)')),
          scope: t.Optional(oneOf(KEY_SCOPES, 'full (the default): everything; sending: send email (HTTP and the SMTP relay) and nothing else; read: GET requests only. Secret keys only')),
          expiresAt: t.Optional(t.Union([t.String({ maxLength: 40 }), t.Null()], { description: 'When it stops working (ISO 8601: 2027-01-31 or 2027-01-31T09:00:00Z); null or absent for never' })),
        }),
        response: { 201: t.Composite([KeySchema, t.Object({ key: t.String({ description: 'The whole key, shown this once' }) })]), ...errors },
        detail: { summary: 'Create an API key with a name, a scope and an optional expiry; it is shown this once (owner, admin; a full key)', tags: ['Projects'] },
      },
    )
    .delete('/keys/:id', ({ params, caller }) => write((trx, at) => projects.revokeProjectKey(trx, caller.project.id, params.id, at)), {
      params: t.Object({ id: numericId('The key id') }),
      response: { 200: KeySchema, ...errors },
      detail: { summary: 'Revoke an API key: it gets 401 from its next request (owner, admin)', tags: ['Projects'] },
    })
    .get('/project/members', ({ caller }) => listMembers(deps.db, caller.project.id), {
      response: { 200: t.Array(MemberSchema), ...errors },
      detail: { summary: "The project's members and their roles", tags: ['Members'] },
    })
    .patch('/project/members/:accountId', ({ params, body, caller }) => write((trx, at) => changeRole(trx, caller.project.id, params.accountId, body.role, at)), {
      params: t.Object({ accountId: t.String() }),
      body: strictObject({ role: RoleField }),
      response: { 200: MemberSchema, ...errors },
      detail: { summary: "Change a member's role; the last owner stays owner (owner)", tags: ['Members'] },
    })
    .delete('/project/members/:accountId', ({ params, caller }) => write((trx) => removeMember(trx, caller.project.id, params.accountId)), {
      params: t.Object({ accountId: t.String() }),
      response: { 200: t.Object({ accountId: t.String(), success: t.Boolean(), message: t.String() }), ...errors },
      detail: { summary: 'Remove a member; the last owner stays (owner)', tags: ['Members'] },
    })
    .get('/project/invitations', ({ caller }) => listInvitations(deps.db, caller.project.id, deps.clock.now()), {
      response: { 200: t.Array(InvitationSchema), ...errors },
      detail: { summary: 'Invitations not yet accepted nor expired (never their links)', tags: ['Members'] },
    })
    .post(
      '/project/invitations',
      async ({ body, caller, set }) => {
        set.status = 201
        const invite = { projectId: caller.project.id, email: body.email, role: body.role, invitedBy: caller.accountId }
        const made = await write((trx, at) => createInvitation(trx, deps.config.secret, deps.config.publicUrl, invite, at))
        // Sent once the invitation is committed, so the link in the email always works.
        const emailed = await deps.systemMail(await invitationMessage(deps.db, made, caller.project.name, caller.accountId))
        return { ...made, emailed }
      },
      {
        body: strictObject({ email: EmailField, role: RoleField }),
        response: {
          201: t.Composite([
            InvitationSchema,
            t.Object({
              link: t.String({ description: 'The link the invitee accepts with, shown this once (it is in the email too); it works for 7 days, once' }),
              emailed: t.Object({
                sent: t.Boolean({ description: "The invitee's mail server took the invitation" }),
                error: t.Union([t.String(), t.Null()], { description: 'Why it was not sent: copy the link to them another way' }),
              }, { description: 'The invitation emailed by the server from MAILSTEAD_SYSTEM_SENDER' }),
            }),
          ]),
          ...errors,
        },
        detail: { summary: 'Invite someone: the server emails them the link, which the answer also shows (owner)', tags: ['Members'] },
      },
    )
    .delete('/project/invitations/:id', ({ params, caller }) => write((trx) => revokeInvitation(trx, caller.project.id, params.id)), {
      params: t.Object({ id: t.String() }),
      response: { 200: Done(t.String()), ...errors },
      detail: { summary: 'Revoke an invitation: its link stops working (owner)', tags: ['Members'] },
    })
}
