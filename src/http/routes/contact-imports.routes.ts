import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Elysia, t } from 'elysia'
import { readCsvHeader } from '../../core/contacts/import-file.ts'
import * as imports from '../../core/contacts/imports.service.ts'
import { newId } from '../../lib/ids.ts'
import { requireKey } from '../auth.ts'
import { IMPORT_BODY_LIMIT } from '../request-body.ts'
import type { HttpDeps } from '../deps.ts'
import { CSV_UPLOAD_BODY, receiveCsvUpload } from '../upload.ts'
import { authErrors, ErrorSchema, intQuery } from '../schemas.ts'

const ImportSchema = t.Object({
  id: t.String(),
  status: t.Union([t.Literal('PENDING'), t.Literal('RUNNING'), t.Literal('COMPLETED'), t.Literal('FAILED')]),
  fileName: t.Union([t.String(), t.Null()], { description: 'The uploaded file\'s name (multipart uploads)' }),
  processedRows: t.Integer({ description: 'Data rows read so far, failed ones included' }),
  createdCount: t.Integer(),
  updatedCount: t.Integer(),
  failedCount: t.Integer(),
  errors: t.Array(t.Object({ line: t.Integer({ description: 'Physical line of the CSV; 1 is the header' }), message: t.String() }), {
    description: 'The first 100 failed rows',
  }),
  error: t.Union([t.String(), t.Null()], { description: 'Why the whole import failed (FAILED only)' }),
  bytesTotal: t.Integer(),
  bytesProcessed: t.Integer(),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  finishedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
}, { title: 'ContactImport' })
const tags = ['Contacts']

/** Importing contacts from CSV: the upload is stored and imported in the background. */
export const contactImportRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/contacts/import' })
    .use(requireKey(deps))
    .post(
      '',
      async ({ request, caller, set }) => {
        const id = newId()
        const stored = join(deps.config.dataDir, imports.uploadPath(id))
        const upload = await receiveCsvUpload(request, stored, IMPORT_BODY_LIMIT)
        try {
          await readCsvHeader(stored)
        } catch (error) {
          await rm(stored, { force: true })
          throw error
        }
        const job = await deps.writer.run((trx) =>
          imports.createImport(trx, caller.project.id, { id, fileName: upload.fileName, filePath: imports.uploadPath(id), storedAt: stored, bytesTotal: upload.bytes }, deps.clock.now()),
        )
        set.status = 202
        return job
      },
      {
        response: { 202: ImportSchema, ...authErrors, 413: ErrorSchema, 415: ErrorSchema },
        detail: {
          summary: 'Import contacts from a CSV file (text/csv body, or the field "file" of a multipart form), in the background',
          description:
            'The header needs an email column; subscribed (true/false/yes/no/1/0) is optional; every other column is a data key. ' +
            'Answers 202 with the import; follow it at GET /contacts/import/{id}.',
          tags,
          requestBody: CSV_UPLOAD_BODY,
        },
      },
    )
    .get('', ({ query, caller }) => imports.listImports(deps.db, caller.project.id, query.limit ?? 20), {
      query: t.Object({ limit: t.Optional(intQuery('limit', 1, 100, 'How many, 20 when absent')) }),
      response: { 200: t.Object({ imports: t.Array(ImportSchema) }), ...authErrors },
      detail: { summary: 'Recent contact imports, newest first', tags },
    })
    .get('/:id', ({ params, caller }) => imports.getImport(deps.db, caller.project.id, params.id), {
      params: t.Object({ id: t.String({ description: 'Import id' }) }),
      response: { 200: ImportSchema, ...authErrors, 404: ErrorSchema },
      detail: { summary: 'A contact import and its progress', tags },
    })
