import { Elysia, t } from 'elysia'
import * as contacts from '../../core/contacts/contacts.service.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { CONTACT_SORTS, type ContactSort } from '../../core/contacts/contact.ts'
import { dirQuery, sortQuery } from '../list-schemas.ts'
import { authErrors, booleanQuery, ContactSchema, DataField, EmailField, ErrorSchema, intQuery, strictObject } from '../schemas.ts'

const IdParams = t.Object({ id: t.String({ description: 'Contact id' }) })
const withNotFound = { ...authErrors, 404: ErrorSchema }
const tags = ['Contacts']

export const contactRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/contacts' })
    .use(requireKey(deps))
    .get('', ({ query, caller }) => contacts.listContacts(deps.db, caller.project.id, { ...query, limit: query.limit ?? 20 }), {
      query: t.Object({
        limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 20 when absent')),
        cursor: t.Optional(t.String({ description: 'The cursor of the previous page' })),
        subscribed: t.Optional(booleanQuery('subscribed', 'Only subscribed (true) or unsubscribed (false) contacts')),
        search: t.Optional(t.String({ maxLength: 254, description: 'Part of the email address', error: 'must be at most 254 characters', 'x-field': 'search' })),
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
      detail: { summary: 'List contacts, newest first unless sorted, by cursor (a cursor pages on in the sort and dir it was made in)', tags },
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
