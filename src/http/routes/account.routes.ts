import { Elysia, t } from 'elysia'
import { createOwnedProject, listMyProjects } from '../../core/accounts/members.service.ts'
import { setPassword } from '../../core/accounts/accounts.service.ts'
import { hashPassword, requirePassword } from '../../core/accounts/password.ts'
import { withCurrentPassword } from '../../core/accounts/reauthenticate.ts'
import { listSessions, revokeSession, type LiveSession } from '../../core/accounts/sessions.service.ts'
import { confirmTotp, disableTotp, enrollTotp, regenerateRecoveryCodes, secondFactorOf } from '../../core/accounts/totp.service.ts'
import { clientAddress, type ServerLike } from '../client-address.ts'
import { writeAt, type HttpDeps } from '../deps.ts'
import { ErrorSchema, strictObject } from '../schemas.ts'
import { requireSession } from '../session.ts'
import { AccountSchema, PasswordField } from './account-schemas.ts'

const tags = ['Accounts']
const errors = { 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema }
const MyProject = t.Object({ id: t.Integer(), name: t.String(), disabled: t.Boolean(), sandbox: t.Boolean({ description: 'Its mail is simulated and never leaves the server' }), role: t.String(), member: t.Boolean({ description: 'false for a project the instance owner sees without being a member (it acts there as owner)' }) }, { title: 'MyProject' })
const SandboxField = t.Boolean({ description: 'A sandbox project: it sends from any address and its mail never leaves the server; the recipient picks the outcome (bounce..., complaint..., defer..., suppressed...@)' })
const Time = t.String({ format: 'date-time' })
const SessionSchema = t.Object({
  id: t.String(),
  current: t.Boolean({ description: 'The session this request is made with' }),
  address: t.Union([t.String(), t.Null()], { description: 'The client address it was made from' }),
  userAgent: t.Union([t.String(), t.Null()]),
  createdAt: Time,
  lastSeenAt: t.String({ format: 'date-time', description: 'Written down at most every 5 minutes' }),
  expiresAt: Time,
}, { title: 'Session' })
const CodeField = t.String({ maxLength: 10, description: 'The current 6-digit code of the authenticator app' })
const CodeBody = strictObject({ code: CodeField })
const CurrentPassword = t.String({ maxLength: 256, description: "The account's current password: changes to how it signs in need it" })
const TotpState = t.Object({ totpEnabled: t.Boolean() })
const RecoveryCodes = t.Array(t.String(), { description: 'Ten recovery codes, shown this once: each signs in once in place of a code, as `code` at sign-in' })
const SecondFactor = t.Object({
  totpEnabled: t.Boolean(),
  recoveryCodesLeft: t.Integer({ description: 'Recovery codes not used yet (0 without a second factor)' }),
}, { title: 'SecondFactor' })

/** What belongs to the signed-in person rather than to a project: their projects, sessions, password and second factor. */
export const accountRoutes = (deps: HttpDeps) => {
  const write = writeAt(deps)
  const withPassword = <T>(session: LiveSession, currentPassword: string, parts: { request: Request; server: unknown }, then: () => Promise<T>) =>
    withCurrentPassword({ db: deps.db, throttle: deps.authenticator.throttle }, { id: session.accountId, email: session.email }, currentPassword, clientAddress(parts.request, parts.server as ServerLike, deps.trustedProxies), then)
  return new Elysia({ prefix: '/api/v1/account' })
    .use(requireSession(deps))
    .get('/projects', ({ session }) => listMyProjects(deps.db, session.accountId, session.instanceOwner), {
      response: { 200: t.Array(MyProject), ...errors },
      detail: { summary: "Your projects with your role in each; the instance owner's are every project of the server", tags },
    })
    .post(
      '/projects',
      ({ body, session, set }) => {
        set.status = 201
        const now = deps.clock.now()
        return deps.writer.run((trx) => createOwnedProject(trx, session.accountId, body.name, now, { sandbox: body.sandbox }))
      },
      {
        body: strictObject({ name: t.String({ maxLength: 100 }), sandbox: t.Optional(SandboxField) }),
        response: {
          201: t.Object({ id: t.Integer(), name: t.String(), sandbox: t.Boolean(), role: t.String(), secretKey: t.String({ description: 'Shown this once' }), publicKey: t.String({ description: 'Shown this once' }) }),
          ...errors,
        },
        detail: { summary: 'Create a project; you become its owner. Its first keys are shown this once', tags },
      },
    )
    .get('/sessions', ({ session }) => listSessions(deps.db, session.accountId, session.id, deps.clock.now()), {
      response: { 200: t.Array(SessionSchema), ...errors },
      detail: { summary: 'Your sessions, most recently used first (never their tokens)', tags },
    })
    .delete('/sessions/:id', ({ params, session }) => write((trx) => revokeSession(trx, session.accountId, params.id)), {
      params: t.Object({ id: t.String() }),
      response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), 404: ErrorSchema, ...errors },
      detail: { summary: 'End one of your sessions (this one too: that signs you out)', tags },
    })
    .post('/totp', ({ body, session, request, server }) => withPassword(session, body.currentPassword, { request, server }, () => write((trx, at) => enrollTotp(trx, deps.config.secret, { id: session.accountId, email: session.email }, at))), {
      body: strictObject({ currentPassword: CurrentPassword }),
      response: {
        200: t.Object({
          secret: t.String({ description: 'Base32, shown this once' }),
          uri: t.String({ description: 'otpauth://totp/... for a QR code, shown this once' }),
          qrSvg: t.String({ description: 'A QR code of `uri`, an SVG document to show as an image, shown this once' }),
        }),
        409: ErrorSchema,
        ...errors,
      },
      detail: { summary: 'Start enrolling a TOTP second factor, with your current password; sign-in asks for codes once a code confirms it', tags },
    })
    .post('/totp/confirm', ({ body, session }) => write((trx, at) => confirmTotp(trx, deps.config.secret, session.accountId, body.code, at)), {
      body: CodeBody,
      response: { 200: t.Object({ totpEnabled: t.Boolean(), recoveryCodes: RecoveryCodes }), 409: ErrorSchema, ...errors },
      detail: { summary: 'Confirm the second factor with a code: from now on sign-in needs one. Answers ten recovery codes, this once', tags },
    })
    .get('/totp', ({ session }) => secondFactorOf(deps.db, session.accountId), {
      response: { 200: SecondFactor, ...errors },
      detail: { summary: 'Whether your second factor is on, and how many recovery codes are left', tags },
    })
    .post('/totp/recovery-codes', ({ body, session, request, server }) => withPassword(session, body.currentPassword, { request, server }, () => write((trx, at) => regenerateRecoveryCodes(trx, session.accountId, at))), {
      body: strictObject({ currentPassword: CurrentPassword }),
      response: { 200: t.Object({ recoveryCodes: RecoveryCodes }), 409: ErrorSchema, ...errors },
      detail: {
        summary: 'New recovery codes in place of the old ones, with your current password (shown this once)',
        description: 'The old codes, used or not, stop working. A wrong password counts as a failed sign-in.',
        tags,
      },
    })
    .post('/totp/disable', ({ body, session, request, server }) => withPassword(session, body.currentPassword, { request, server }, () => write((trx, at) => disableTotp(trx, deps.config.secret, session.accountId, body.code, at))), {
      body: strictObject({ code: CodeField, currentPassword: CurrentPassword }),
      response: { 200: TotpState, 409: ErrorSchema, ...errors },
      detail: {
        summary: 'Turn the second factor off, with a current code and your current password',
        description: 'A wrong code or password counts as a failed sign-in: the next ones wait, and at most 8 wait at once (429).',
        tags,
      },
    })
    .post(
      '/password',
      ({ body, session, request, server }) =>
        withPassword(session, body.currentPassword, { request, server }, async () => {
          const hash = await hashPassword(requirePassword(body.password))
          return { account: await write((trx, at) => setPassword(trx, session.accountId, hash, at, session.id)) }
        }),
      {
        body: strictObject({ currentPassword: CurrentPassword, password: PasswordField }),
        response: { 200: t.Object({ account: AccountSchema }), ...errors },
        detail: { summary: 'Change your password, with the current one; your other sessions end', tags },
      },
    )
}
