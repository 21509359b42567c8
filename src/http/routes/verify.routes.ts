import { Elysia, t } from 'elysia'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, EmailField, strictObject } from '../schemas.ts'

const VerificationSchema = t.Object({
  email: t.String(),
  valid: t.Boolean(),
  isDisposable: t.Boolean(),
  isAlias: t.Boolean(),
  isTypo: t.Boolean(),
  isPlusAddressed: t.Boolean(),
  isRandomInput: t.Boolean(),
  isPersonalEmail: t.Boolean(),
  domainExists: t.Boolean(),
  hasWebsite: t.Boolean(),
  hasMxRecords: t.Boolean(),
  reasons: t.Array(t.String()),
  suggestedEmail: t.Optional(t.String()),
}, { title: 'Verification' })

export const verifyRoutes = (deps: HttpDeps) =>
  new Elysia().use(requireKey(deps)).post(
    '/v1/verify',
    async ({ body }) => ({ success: true as const, data: await deps.verify(body.email) }),
    {
      body: strictObject({ email: EmailField }),
      response: { 200: t.Object({ success: t.Literal(true), data: VerificationSchema }), ...authErrors },
      detail: {
        summary: 'Verify an email address without sending to it',
        description: 'Syntax, disposable, alias, typo, plus-addressing, random-input and DNS checks.',
        tags: ['Verification'],
      },
    },
  )
