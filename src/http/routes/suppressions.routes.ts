import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Elysia, t } from 'elysia'
import * as suppressions from '../../core/suppressions/suppressions.service.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, EmailField, ErrorSchema, intQuery, strictObject } from '../schemas.ts'
import { SUPPRESSION_IMPORT_LIMIT } from '../request-body.ts'
import { CSV_UPLOAD_BODY, receiveCsvUpload } from '../upload.ts'
import { newId } from '../../lib/ids.ts'

const SuppressionSchema = t.Object({
  email: t.String(),
  reason: t.UnionEnum(['hard_bounce', 'complaint', 'manual', 'erased'], { description: "erased: an erased contact's address, listed as its SHA-256 (sha256:<hex>)" }),
  detail: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
}, { title: 'Suppression' })

const tags = ['Suppressions']

export const suppressionRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/suppressions' })
    .use(requireKey(deps))
    .get('', ({ query, caller }) => suppressions.listSuppressions(deps.db, caller.project.id, query.page ?? 1, query.limit ?? 20, query.search), {
      query: t.Object({
        page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
        limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 20 when absent')),
        search: t.Optional(t.String({ maxLength: 254, description: 'Part of the address', error: 'must be at most 254 characters', 'x-field': 'search' })),
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
    .post(
      '/import',
      async ({ request, caller }) => {
        const stored = join(deps.config.dataDir, 'imports', `suppressions-${newId()}.csv`)
        try {
          await receiveCsvUpload(request, stored, SUPPRESSION_IMPORT_LIMIT)
          const file = new Uint8Array(await Bun.file(stored).arrayBuffer())
          return await deps.writer.run((trx) => suppressions.importSuppressions(trx, caller.project.id, file, deps.clock.now()))
        } finally {
          await rm(stored, { force: true })
        }
      },
      {
        response: {
          200: t.Object({
            added: t.Integer({ description: 'Addresses suppressed now' }),
            alreadySuppressed: t.Integer({ description: 'Addresses that were suppressed already (they keep their first reason)' }),
            failedCount: t.Integer({ description: 'Lines that are not an address' }),
            failed: t.Array(t.Object({ line: t.Integer(), error: t.String() }), { description: 'The first 100 of them, with why' }),
          }),
          ...authErrors,
          413: ErrorSchema,
          415: ErrorSchema,
        },
        detail: {
          summary: 'Suppress every address of a CSV file (text/csv body, or the field "file" of a multipart form)',
          description:
            'One address a line: a header naming an email column (and perhaps a detail or reason column), or no header and the address first. ' +
            'Lines that are not addresses are listed with their line numbers; the others are suppressed all the same. At most 5 MiB.',
          tags,
          requestBody: CSV_UPLOAD_BODY,
        },
      },
    )
    .delete('/:email', ({ params, caller }) => deps.writer.run((trx) => suppressions.unsuppress(trx, caller.project.id, params.email)), {
      params: t.Object({ email: t.String() }),
      response: { 200: t.Object({ email: t.String(), success: t.Boolean(), message: t.String() }), ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Take an address off the suppression list', tags },
    })
