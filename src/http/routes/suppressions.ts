import { Elysia, t } from 'elysia'
import * as suppressions from '../../core/suppressions/suppressions.service.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, EmailField, ErrorSchema, intQuery, strictObject } from '../schemas.ts'

const SuppressionSchema = t.Object({
  email: t.String(),
  reason: t.UnionEnum(['hard_bounce', 'complaint', 'manual']),
  detail: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
})

const tags = ['Suppressions']

export const suppressionRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/suppressions' })
    .use(requireKey(deps))
    .get('', ({ query, caller }) => suppressions.listSuppressions(deps.db, caller.project.id, query.page ?? 1, query.limit ?? 20), {
      query: t.Object({
        page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
        limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 20 when absent')),
      }),
      response: { 200: t.Object({ data: t.Array(SuppressionSchema), count: t.Integer() }), ...authErrors },
      detail: { summary: "List the project's suppressed addresses, newest first", tags },
    })
    .post(
      '',
      ({ body, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => suppressions.suppress(trx, caller.project.id, body.email, 'manual', body.detail ?? null, now))
      },
      {
        body: strictObject({ email: EmailField, detail: t.Optional(t.String({ maxLength: 500 })) }),
        response: { 200: SuppressionSchema, ...authErrors },
        detail: { summary: 'Suppress an address: mail to it is not sent', tags },
      },
    )
    .delete('/:email', ({ params, caller }) => deps.writer.run((trx) => suppressions.unsuppress(trx, caller.project.id, params.email)), {
      params: t.Object({ email: t.String() }),
      response: { 200: t.Object({ email: t.String(), success: t.Boolean(), message: t.String() }), ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Take an address off the suppression list', tags },
    })
