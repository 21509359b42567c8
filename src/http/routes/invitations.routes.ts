import { Elysia, t } from 'elysia'
import { createAccount, requireEmail } from '../../core/accounts/accounts.service.ts'
import { acceptInvitation, describeInvitation } from '../../core/accounts/invitations.service.ts'
import { hashPassword, requirePassword } from '../../core/accounts/password.ts'
import { sessionPolicyOf, startSession } from '../../core/accounts/sessions.service.ts'
import { csrfTokenFor } from '../../core/accounts/tokens.ts'
import { invalid } from '../../lib/errors.ts'
import { isoTime } from '../../lib/clock.ts'
import { clientAddress, type ServerLike } from '../client-address.ts'
import type { HttpDeps } from '../deps.ts'
import { ErrorSchema, strictObject } from '../schemas.ts'
import { authenticateSession, checkOrigin, sessionCookie, sessionToken } from '../session.ts'
import { checkedFirst } from '../unauthenticated.ts'
import { PasswordField } from './account-schemas.ts'

const tags = ['Members']
const TokenField = t.String({ maxLength: 512, description: 'The token of the invitation link' })
const errors = { 401: ErrorSchema, 403: ErrorSchema, 409: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema }

/**
 * The invitee's side of an invitation link. Signed in, they accept it as that account (the one it
 * was sent to); not signed in, they accept it by choosing a password, which makes their account
 * with the invitation's email and signs them in.
 */
export const invitationRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/invitations' })
    .post('/lookup', ({ body, request, server }) => checkedFirst(deps, { request, server: server as ServerLike }, () => describeInvitation(deps.db, deps.config.secret, body.token, deps.clock.now())), {
      body: strictObject({ token: TokenField }),
      response: {
        200: t.Object({ id: t.String(), email: t.String(), role: t.String(), createdAt: t.String(), expiresAt: t.String(), projectId: t.Integer(), projectName: t.String() }),
        ...errors,
      },
      detail: { summary: 'What an invitation link is for, while it can be accepted', tags, security: [] },
    })
    .post(
      '/accept',
      async ({ body, headers, request, server, set }) => {
        const parts = { request, server: server as ServerLike }
        const now = deps.clock.now()
        const token = sessionToken(headers.cookie)
        if (token !== undefined) {
          const session = await authenticateSession(deps, parts, token, set)
          const account = { id: session.accountId, emailKey: requireEmail(session.email).key }
          return deps.writer.run((trx) => acceptInvitation(trx, deps.config.secret, body.token, account, now))
        }
        checkOrigin(deps, parts)
        // The link first: a made-up one costs a signature check and the address's budget, never a hash.
        const { email } = await checkedFirst(deps, parts, () => describeInvitation(deps.db, deps.config.secret, body.token, now))
        if (body.password === undefined) throw invalid('password', 'choose a password to make your account, or sign in first')
        const hash = await hashPassword(requirePassword(body.password))
        const meta = { address: clientAddress(request, parts.server, deps.trustedProxies), userAgent: request.headers.get('user-agent') ?? undefined }
        const done = await deps.writer.run(async (trx) => {
          const account = await createAccount(trx, email, hash, now)
          const joined = await acceptInvitation(trx, deps.config.secret, body.token, { id: account.id, emailKey: requireEmail(account.email).key }, now)
          return { ...joined, account, session: await startSession(trx, account.id, meta, now, sessionPolicyOf(deps.config)) }
        })
        set.headers['set-cookie'] = sessionCookie(deps, parts, done.session.token, done.session.expiresAt)
        set.headers['cache-control'] = 'no-store'
        return { projectId: done.projectId, role: done.role, account: done.account, csrfToken: csrfTokenFor(deps.config.secret, done.session.id), expiresAt: isoTime(done.session.expiresAt) }
      },
      {
        body: strictObject({ token: TokenField, password: t.Optional(PasswordField) }),
        response: {
          200: t.Object({
            projectId: t.Integer(),
            role: t.String(),
            account: t.Optional(t.Object({ id: t.String(), email: t.String() }, { additionalProperties: true })),
            csrfToken: t.Optional(t.String({ description: 'When the acceptance made the account and signed it in' })),
            expiresAt: t.Optional(t.String()),
          }),
          ...errors,
        },
        detail: {
          summary: 'Accept an invitation: signed in (with X-CSRF-Token), as that account; else with a password, which makes the account and signs it in',
          tags,
          security: [],
        },
      },
    )
