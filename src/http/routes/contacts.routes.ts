import { Elysia, t } from 'elysia'
import * as contacts from '../../core/contacts/contacts.service.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { CONTACT_SORTS, type ContactSort } from '../../core/contacts/contact.ts'
import { dirQuery, sortQuery } from '../list-schemas.ts'
import { authErrors, ContactSchema, DataField, EmailField, ErrorSchema, intQuery, oneOf, strictObject } from '../schemas.ts'
import { addContactsToBook, checkBook, prepareContactsOptIns, removeBookContacts } from '../../core/segments/index.ts'
import { consentClient } from '../client-address.ts'
import { contactsCsv, deleteContacts, unsubscribeContacts } from '../../core/contacts/index.ts'
import { contactMatch, filterQuery, inChunks, selectionFields } from '../contact-selection.ts'

const IdParams = t.Object({ id: t.String({ description: 'Contact id' }) })
const withNotFound = { ...authErrors, 404: ErrorSchema }
const tags = ['Contacts']

const BulkAnswer = t.Object(
  {
    action: t.String(),
    changed: t.Integer({ description: 'Contacts the action changed (added, removed, unsubscribed, deleted); those already so are not counted' }),
    selected: t.Integer({ description: 'Contacts the ids or the filter selected' }),
  },
  { title: 'ContactBulkResult' },
)

/** The export's chunks as a response body, read one page ahead of the client at most. */
function csvStream(chunks: AsyncGenerator<{ csv: string }>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done) controller.close()
      else controller.enqueue(encoder.encode(next.value.csv))
    },
    async cancel() {
      await chunks.return(undefined)
    },
  }, { highWaterMark: 0 })
}

/** The contacts: the export (its own instance, for its projectId) and the rest. */
export const contactRoutes = (deps: HttpDeps) => new Elysia().use(contactExportRoutes(deps)).use(contactTableRoutes(deps))

const contactTableRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/contacts' })
    .use(requireKey(deps))
    .get(
      '',
      async ({ query, caller }) => {
        const match = await contactMatch(deps.db, caller.project.id, query, deps.clock.now())
        return contacts.listContacts(deps.db, caller.project.id, { ...query, ...match, limit: query.limit ?? 20 })
      },
      {
      query: t.Object({
        limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 20 when absent')),
        cursor: t.Optional(t.String({ description: 'The cursor of the previous page' })),
        ...filterQuery,
        sort: sortQuery(Object.keys(CONTACT_SORTS) as [ContactSort, ...ContactSort[]]),
        dir: dirQuery,
      }),
      response: {
        200: t.Object({
          contacts: t.Array(ContactSchema),
          cursor: t.Union([t.String(), t.Null()]),
          hasMore: t.Boolean(),
          total: t.Optional(t.Integer({ description: 'Present on the first page only' })),
        }),
        ...authErrors,
      },
      detail: {
        summary: 'List contacts, newest first unless sorted, by cursor (a cursor pages on in the sort and dir it was made in), filtered by search, subscription and a segment condition',
        tags,
      },
      },
    )
    .post(
      '/bulk',
      async ({ body, caller, request, server }) => {
        const projectId = caller.project.id
        if (body.action !== 'unsubscribe' && body.bookId === undefined) throw invalid('bookId', `is needed to ${body.action}`)
        if (body.bookId !== undefined) await checkBook(deps.db, projectId, body.bookId)
        const mail = { links: deps.links, build: deps.build, sendSettings: deps.sendSettings }
        const served = { request, server }
        const bookId = body.bookId!
        if (body.action === 'addToBook') {
          // With double opt-in, each chunk's confirmations are built before its transaction.
          const source = { method: 'api' as const, ...consentClient(request, server, deps.trustedProxies) }
          const prepare = (ids: readonly string[], now: number) => prepareContactsOptIns(deps.db, projectId, bookId, ids, mail, now)
          return { action: body.action, ...(await inChunks(deps, served, projectId, body, (trx, ids, now, prepared) => addContactsToBook(trx, projectId, bookId, ids, source, mail, now, prepared), prepare)) }
        }
        const apply =
          body.action === 'unsubscribe'
            ? (trx: typeof deps.db, ids: readonly string[], now: number) => unsubscribeContacts(trx, projectId, ids, now)
            : async (trx: typeof deps.db, ids: readonly string[], now: number) => (await removeBookContacts(trx, projectId, bookId, ids, now)).count
        return { action: body.action, ...(await inChunks(deps, served, projectId, body, apply)) }
      },
      {
        body: strictObject({
          action: oneOf(['addToBook', 'removeFromBook', 'unsubscribe'], 'addToBook (with double opt-in the book sends its confirmation), removeFromBook, unsubscribe'),
          bookId: t.Optional(t.String({ description: 'The contact book, for addToBook and removeFromBook' })),
          ...selectionFields,
        }),
        response: { 200: BulkAnswer, ...withNotFound },
        detail: { summary: 'Add contacts to a book, take them out of it, or unsubscribe them: by ids, or every contact a filter selects (in chunks)', tags },
      },
    )
    .post('/bulk/delete', async ({ body, caller, request, server }) => ({ action: 'delete' as const, ...(await inChunks(deps, { request, server }, caller.project.id, body, (trx, ids) => deleteContacts(trx, caller.project.id, ids))) }), {
      body: strictObject(selectionFields),
      response: { 200: BulkAnswer, ...authErrors },
      detail: { summary: 'Delete contacts and their events, by ids or every contact a filter selects (in chunks); owners and admins only', tags },
    })
    .get('/:id', ({ params, caller }) => contacts.getContact(deps.db, caller.project.id, params.id), {
      params: IdParams,
      response: { 200: ContactSchema, ...withNotFound },
      detail: { summary: 'Get a contact', tags },
    })
    .post(
      '',
      async ({ body, caller, set }) => {
        const now = deps.clock.now()
        const result = await deps.writer.run((trx) => contacts.saveContact(trx, caller.project.id, body, now))
        set.status = result.created ? 201 : 200
        return result.contact
      },
      {
        body: strictObject({
          email: EmailField,
          subscribed: t.Optional(t.Boolean({ description: 'true when absent for a new contact' })),
          data: t.Optional(DataField),
        }),
        response: { 200: ContactSchema, 201: ContactSchema, ...authErrors },
        detail: { summary: 'Create a contact, or update the one with this email', tags },
      },
    )
    .patch(
      '/:id',
      async ({ params, body, caller }) => {
        if (Object.keys(body).length === 0) throw invalid('body', 'give at least one of email, subscribed, data')
        const now = deps.clock.now()
        return deps.writer.run((trx) => contacts.updateContact(trx, caller.project.id, params.id, body, now))
      },
      {
        params: IdParams,
        body: strictObject({ email: t.Optional(EmailField), subscribed: t.Optional(t.Boolean()), data: t.Optional(DataField) }),
        response: { 200: ContactSchema, ...withNotFound, 409: ErrorSchema },
        detail: { summary: 'Update a contact; data is merged and a null value removes a key', tags },
      },
    )
    .delete('/:id', ({ params, caller }) => deps.writer.run((trx) => contacts.deleteContact(trx, caller.project.id, params.id, deps.clock.now())), {
      params: IdParams,
      response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), ...withNotFound },
      detail: { summary: 'Delete a contact and its events', tags },
    })

/**
 * The contacts as CSV, streamed page by page from the database. A download link cannot send
 * headers, so a session names the project in ?projectId= here, as the email preview does; a key's
 * project is its own, whatever the query says.
 */
const contactExportRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/contacts' })
    .use(requireKey(deps, { projectQuery: true }))
    .get(
      '/export',
      async ({ query, caller }) => {
        const match = await contactMatch(deps.db, caller.project.id, query, deps.clock.now())
        const { chunks } = await contactsCsv(deps.db, caller.project.id, match)
        return new Response(csvStream(chunks), {
          headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="contacts-${caller.project.id}.csv"` },
        })
      },
      {
        query: t.Object({
          ...filterQuery,
          projectId: t.Optional(t.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'With a session and no X-Project-Id header: the project', error: 'must be a project id', 'x-field': 'projectId' })),
        }),
        detail: {
          summary: 'Download the contacts a filter selects (every one without a filter) as CSV, streamed: email, subscribed, createdAt, updatedAt, then a column per data key',
          description: "A signed-in person's download link names the project in projectId, as a link cannot send X-Project-Id.",
          tags,
          responses: {
            200: { description: 'The CSV', content: { 'text/csv': { schema: { type: 'string', format: 'binary' } } } },
            422: { description: 'A filter is not valid (the error body names it)' },
          },
        },
      },
    )
