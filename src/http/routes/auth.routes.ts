import { Elysia, t } from 'elysia'
import { accountOfPasswordToken, setPasswordWithToken, type Account } from '../../core/accounts/accounts.service.ts'
import { hashPassword, requirePassword } from '../../core/accounts/password.ts'
import { revokeSession } from '../../core/accounts/sessions.service.ts'
import { checkSetup, completeSetup, setupOpen } from '../../core/accounts/setup.ts'
import { signIn } from '../../core/accounts/sign-in.ts'
import { sessionPolicyOf, startSession } from '../../core/accounts/sessions.service.ts'
import { csrfTokenFor } from '../../core/accounts/tokens.ts'
import { isTotpEnabled } from '../../core/accounts/totp.service.ts'
import { isoTime } from '../../lib/clock.ts'
import { clientAddress, type ServerLike } from '../client-address.ts'
import type { HttpDeps } from '../deps.ts'
import { ErrorSchema, strictObject } from '../schemas.ts'
import { checkOrigin, requireSession, sessionCookie } from '../session.ts'
import { checkedFirst } from '../unauthenticated.ts'
import { AccountSchema, PasswordField } from './account-schemas.ts'

const tags = ['Accounts']

const SignedIn = t.Object({
  account: AccountSchema,
  csrfToken: t.String({ description: 'Send it in the X-CSRF-Token header of every write made with the session cookie' }),
  expiresAt: t.String({ format: 'date-time', description: 'When the session ends unless used: each use moves it two weeks on' }),
}, { title: 'SignedIn' })

const errors = { 401: ErrorSchema, 403: ErrorSchema, 409: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema }

/**
 * Signing in and out, the first-run setup and password links. Sessions live in the database and
 * in an HttpOnly cookie; the answers carry the session's CSRF token, never the session token.
 */
export const authRoutes = (deps: HttpDeps) => {
  const signedIn = (account: Account, session: { id: string; expiresAt: number }) => ({
    account,
    csrfToken: csrfTokenFor(deps.config.secret, session.id),
    expiresAt: isoTime(session.expiresAt),
  })
  const metaOf = (request: Request, server: ServerLike) => ({
    address: clientAddress(request, server, deps.trustedProxies),
    userAgent: request.headers.get('user-agent') ?? undefined,
  })
  return new Elysia({ prefix: '/api/v1/auth' })
    .onBeforeHandle(({ set }) => {
      set.headers['cache-control'] = 'no-store'
    })
    .get('/setup', async () => ({ open: await setupOpen(deps.db) }), {
      response: { 200: t.Object({ open: t.Boolean({ description: 'True while no account exists: the console shows its /setup page' }) }) },
      detail: { summary: 'Whether the first-run setup is open', tags, security: [] },
    })
    .post(
      '/setup',
      async ({ body, request, server, set }) => {
        const parts = { request, server: server as ServerLike }
        checkOrigin(deps, parts)
        const now = deps.clock.now()
        await checkedFirst(deps, parts, () => checkSetup(deps.db, deps.config.secret, body.token, now))
        const hash = await hashPassword(requirePassword(body.password))
        const meta = metaOf(request, server as ServerLike)
        const { account, session } = await deps.writer.run(async (trx) => {
          const made = await completeSetup(trx, deps.config.secret, body.token, body.email, hash, now)
          return { account: made, session: await startSession(trx, made.id, meta, now, sessionPolicyOf(deps.config)) }
        })
        set.headers['set-cookie'] = sessionCookie(deps, { request, server: server as ServerLike }, session.token, session.expiresAt)
        set.status = 201
        return signedIn(account, session)
      },
      {
        body: strictObject({
          token: t.String({ maxLength: 512, description: 'The setup token the server logged at start (tag SETUP) while no account existed' }),
          email: t.String({ maxLength: 254 }),
          password: PasswordField,
        }),
        response: { 201: SignedIn, ...errors },
        detail: { summary: 'Make the first account with the setup token from the log, and sign in', tags, security: [] },
      },
    )
    .post(
      '/sign-in',
      async ({ body, request, server, set }) => {
        const parts = { request, server: server as ServerLike }
        checkOrigin(deps, parts)
        const done = await signIn({ db: deps.db, write: deps.writer.run, clock: deps.clock, throttle: deps.authenticator.throttle, secret: deps.config.secret, sessions: sessionPolicyOf(deps.config) }, body, metaOf(request, parts.server))
        set.headers['set-cookie'] = sessionCookie(deps, parts, done.session.token, done.session.expiresAt)
        return signedIn(done.account, done.session)
      },
      {
        body: strictObject({
          email: t.String({ maxLength: 254 }),
          password: t.String({ maxLength: 256 }),
          code: t.Optional(t.String({ maxLength: 32, description: 'The 6-digit code of the authenticator app, or one of the recovery codes (each signs in once), for an account with a second factor (else 401 TOTP_REQUIRED)' })),
        }),
        response: { 200: SignedIn, ...errors },
        detail: {
          summary: 'Sign in with email and password: sets the HttpOnly session cookie and returns the CSRF token',
          description: 'Failed sign-ins slow the next ones from the same address and to the same account (429 with Retry-After when too many wait).',
          tags,
          security: [],
        },
      },
    )
    .post(
      '/password',
      async ({ body, request, server }) => {
        const parts = { request, server: server as ServerLike }
        checkOrigin(deps, parts)
        const now = deps.clock.now()
        await checkedFirst(deps, parts, () => accountOfPasswordToken(deps.db, deps.config.secret, body.token, now))
        const hash = await hashPassword(requirePassword(body.password))
        return { account: await deps.writer.run((trx) => setPasswordWithToken(trx, deps.config.secret, body.token, hash, now)) }
      },
      {
        body: strictObject({ token: t.String({ maxLength: 512, description: 'From the one-time link `mailstead user create` or `user reset-password` printed' }), password: PasswordField }),
        response: { 200: t.Object({ account: AccountSchema }), ...errors },
        detail: { summary: "Set an account's password with a one-time link; the account's sessions end", tags, security: [] },
      },
    )
    .use(requireSession(deps))
    .get(
      '/session',
      async ({ session }) => ({
        account: { id: session.accountId, email: session.email, totpEnabled: await isTotpEnabled(deps.db, session.accountId), instanceOwner: session.instanceOwner },
        csrfToken: csrfTokenFor(deps.config.secret, session.id),
        expiresAt: isoTime(session.expiresAt),
      }),
      {
      response: {
        200: t.Object({ account: t.Object({ id: t.String(), email: t.String(), totpEnabled: t.Boolean(), instanceOwner: t.Boolean({ description: 'Sees every project of the server, as its owner' }) }), csrfToken: t.String(), expiresAt: t.String({ format: 'date-time' }) }),
        401: ErrorSchema,
        429: ErrorSchema,
      },
      detail: { summary: 'The signed-in account and its CSRF token (the console asks at load)', tags },
    },
    )
    .post(
      '/sign-out',
      async ({ session, request, server, set }) => {
        await deps.writer.run((trx) => revokeSession(trx, session.accountId, session.id))
        set.headers['set-cookie'] = sessionCookie(deps, { request, server: server as ServerLike }, undefined)
        return { success: true, message: 'Signed out' }
      },
      {
        response: { 200: t.Object({ success: t.Boolean(), message: t.String() }), 401: ErrorSchema, 403: ErrorSchema, 429: ErrorSchema },
        detail: { summary: 'Sign out: the session ends and its cookie is cleared (needs X-CSRF-Token)', tags },
      },
    )
}
