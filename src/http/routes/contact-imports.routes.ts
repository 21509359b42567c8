import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Elysia, t } from 'elysia'
import { parseMapping, type ColumnMapping } from '../../core/contacts/csv-columns.ts'
import { MAX_ERRORS, readCsvHeader } from '../../core/contacts/import-file.ts'
import * as imports from '../../core/contacts/imports.service.ts'
import { newId } from '../../lib/ids.ts'
import { requireKey } from '../auth.ts'
import { IMPORT_BODY_LIMIT } from '../request-body.ts'
import type { HttpDeps } from '../deps.ts'
import { csvUploadBody, receiveCsvUpload } from '../upload.ts'
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
        let mapping: ColumnMapping | undefined
        try {
          mapping = upload.fields.mapping === undefined ? undefined : parseMapping(upload.fields.mapping)
          await readCsvHeader(stored, mapping)
        } catch (error) {
          await rm(stored, { force: true })
          throw error
        }
        const created = { id, fileName: upload.fileName, filePath: imports.uploadPath(id), storedAt: stored, bytesTotal: upload.bytes, mapping }
        const job = await deps.writer.run((trx) => imports.createImport(trx, caller.project.id, created, deps.clock.now()))
        set.status = 202
        return job
      },
      {
        response: { 202: ImportSchema, ...authErrors, 413: ErrorSchema, 415: ErrorSchema },
        detail: {
          summary: 'Import contacts from a CSV file (text/csv body, or the field "file" of a multipart form), in the background',
          description:
            'The file must be UTF-8. The header needs an email column; subscribed (true/false/yes/no/1/0) is optional; every other column is a data key. ' +
            'A form may add "mapping", JSON of column name to email, subscribed, ignore or data.<key>, for columns named otherwise (e.g. {"E-mail address": "email"}). ' +
            'A file that is not UTF-8, has no header, names a column twice or does not fit its mapping is a 422 and starts nothing. ' +
            'Answers 202 with the import; follow it at GET /contacts/import/{id}.',
          tags,
          requestBody: csvUploadBody({
            mapping: { type: 'string', description: 'JSON object: CSV column name to "email", "subscribed", "ignore" or "data.<key>"; columns it leaves out are read as named' },
          }),
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
    .get(
      '/:id/errors.csv',
      async ({ params, caller, set }) => {
        const job = await imports.getImport(deps.db, caller.project.id, params.id)
        set.headers['content-type'] = 'text/csv; charset=utf-8'
        set.headers['content-disposition'] = `attachment; filename="import-${job.id}-refused-rows.csv"`
        return imports.refusedRowsCsv(job)
      },
      {
        params: t.Object({ id: t.String({ description: 'Import id' }) }),
        detail: {
          summary: 'The report of the rows an import refused, as CSV: line,reason',
          description: `Each refused row with its line (1 is the header) and why, the first ${MAX_ERRORS} of them; when more were refused, a last row without a line says how many more.`,
          tags,
          responses: {
            200: { description: 'The report', content: { 'text/csv': { schema: { type: 'string' } } } },
            404: { description: 'No such import in the project (the error body)' },
          },
        },
      },
    )
