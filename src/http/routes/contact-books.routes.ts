import { Elysia, t } from 'elysia'
import type { ConsentSource } from '../../core/segments/opt-in.service.ts'
import { consentClient, type ServerLike } from '../client-address.ts'
import * as bookContacts from '../../core/segments/book-contacts.service.ts'
import * as books from '../../core/segments/contact-books.service.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, DataField, EmailField, ErrorSchema, intQuery, strictObject } from '../schemas.ts'

const BookSchema = t.Object({
  id: t.String(),
  name: t.String(),
  teamId: t.Integer(),
  emoji: t.String(),
  properties: t.Record(t.String(), t.Any()),
  variables: t.Array(t.String()),
  doubleOptInEnabled: t.Boolean({ description: 'New contacts are pending until they follow the link of a confirmation email' }),
  doubleOptInFrom: t.Union([t.String(), t.Null()], { description: "Sender of the confirmation email, on a verified domain; null: the project's default sender" }),
  doubleOptInSubject: t.String({ description: 'Subject of the confirmation email' }),
  doubleOptInContent: t.String({ description: 'HTML of the confirmation email, with {{doubleOptInUrl}}' }),
  contactCount: t.Integer(),
  _count: t.Object({ contacts: t.Integer() }, { description: "useSend's name for contactCount" }),
  createdAt: t.String(),
  updatedAt: t.String(),
}, { title: 'ContactBook' })

const BookContactSchema = t.Object({
  id: t.String(),
  email: t.String(),
  firstName: t.Union([t.String(), t.Null()]),
  lastName: t.Union([t.String(), t.Null()]),
  subscribed: t.Boolean(),
  properties: t.Record(t.String(), t.Any()),
  contactBookId: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
}, { title: 'ContactBookContact' })

const ConsentSchema = t.Object(
  {
    confirmedAt: t.String(),
    method: t.String({ description: "How: 'confirmation', the double opt-in link's button" }),
    clientIp: t.Union([t.String(), t.Null()]),
    userAgent: t.Union([t.String(), t.Null()]),
    agreedTo: t.Object({ book: t.String(), subject: t.Union([t.String(), t.Null()]) }, { description: "The book's name and the confirmation's subject" }),
  },
  { title: 'ContactBookConsent' },
)

const BookContactWithConsent = t.Composite([BookContactSchema, t.Object({ consent: t.Union([ConsentSchema, t.Null()], { description: 'The consent given by double opt-in; null when none was' }) })], {
  title: 'ContactBookContactWithConsent',
})

const BookFields = {
  emoji: t.Optional(t.String({ maxLength: 50 })),
  properties: t.Optional(DataField),
  variables: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 100, description: 'Personalization variables of the contacts in this book' })),
  doubleOptInEnabled: t.Optional(t.Boolean({ description: 'Contacts added are pending until they confirm by the emailed link' })),
  doubleOptInFrom: t.Optional(t.Union([t.String({ maxLength: 320 }), t.Null()], { description: "An address on a verified domain of the project; null: the project's default sender" })),
  doubleOptInSubject: t.Optional(t.String({ maxLength: 998 })),
  doubleOptInContent: t.Optional(t.String({ maxLength: 100_000, description: 'HTML; must contain {{doubleOptInUrl}} while double opt-in is enabled' })),
}
const ContactFields = {
  firstName: t.Optional(t.String()),
  lastName: t.Optional(t.String()),
  properties: t.Optional(DataField),
  subscribed: t.Optional(t.Boolean()),
}
const NewContact = strictObject({ email: EmailField, ...ContactFields }, { title: 'NewContactBookContact' })
const ContactId = t.Object({ contactId: t.String() })
const PendingContactSchema = t.Object(
  {
    contactId: t.String(),
    email: t.String(),
    requestedAt: t.String({ description: 'When the latest confirmation was sent' }),
    expiresAt: t.String({ description: 'When its link stops working' }),
    expired: t.Boolean(),
    emailId: t.Union([t.String(), t.Null()], { description: 'The confirmation email in the email log' }),
  },
  { title: 'PendingBookContact' },
)

const BookParams = t.Object({ contactBookId: t.String() })
const ContactParams = t.Object({ contactBookId: t.String(), contactId: t.String() })
const commaList = (name: string) => t.Optional(t.String({ maxLength: 100_000, description: `Only these ${name}, comma-separated` }))
const splitList = (value: string | undefined) => value?.split(',').map((part) => part.trim()).filter(Boolean)
const withNotFound = { ...authErrors, 404: ErrorSchema }
const tags = ['Contact books']

/** useSend's contact books (`/api/v1/contactBooks`): each is a STATIC segment of the project's contacts. */
export const contactBookRoutes = (deps: HttpDeps) => {
  const write = <T>(work: (trx: typeof deps.db, now: number) => Promise<T>) => {
    const now = deps.clock.now()
    return deps.writer.run((trx) => work(trx, now))
  }
  // Read when a contact is added, not while the routes are declared.
  const mail = () => ({ links: deps.links, build: deps.build, sendSettings: deps.sendSettings })
  const viaApi = (request: Request, server: ServerLike): ConsentSource => ({ method: 'api', ...consentClient(request, server, deps.trustedProxies) })
  return new Elysia({ prefix: '/api/v1/contactBooks' })
    .use(requireKey(deps))
    .get('', ({ caller }) => books.listBooks(deps.db, caller.project.id), {
      response: { 200: t.Array(BookSchema), ...authErrors },
      detail: { summary: 'List contact books', tags },
    })
    .post('', ({ body, caller }) => write((trx, now) => books.createBook(trx, caller.project.id, body, now)), {
      body: strictObject({ name: t.String(), ...BookFields }),
      response: { 200: BookSchema, ...authErrors },
      detail: { summary: 'Create a contact book (a STATIC segment)', tags },
    })
    .get('/:contactBookId', ({ params, caller }) => books.getBook(deps.db, caller.project.id, params.contactBookId), {
      params: BookParams,
      response: { 200: BookSchema, ...withNotFound },
      detail: { summary: 'Get a contact book with its contact count', tags },
    })
    .patch('/:contactBookId', ({ params, body, caller }) => write((trx, now) => books.updateBook(trx, caller.project.id, params.contactBookId, body, now)), {
      params: BookParams,
      body: strictObject({ name: t.Optional(t.String()), ...BookFields }),
      response: { 200: BookSchema, ...withNotFound },
      detail: { summary: 'Update a contact book', tags },
    })
    .delete('/:contactBookId', ({ params, caller }) => write((trx, now) => books.deleteBook(trx, caller.project.id, params.contactBookId, now)), {
      params: BookParams,
      response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), ...withNotFound, 409: ErrorSchema },
      detail: { summary: 'Delete a contact book (its contacts stay contacts)', tags },
    })
    .get(
      '/:contactBookId/contacts',
      ({ params, query, caller }) =>
        bookContacts.listBookContacts(deps.db, caller.project.id, params.contactBookId, {
          page: query.page ?? 1,
          limit: query.limit ?? 1000,
          emails: splitList(query.emails),
          ids: splitList(query.ids),
        }),
      {
        params: BookParams,
        query: t.Object({
          page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
          limit: t.Optional(intQuery('limit', 1, 1000, 'Page size, 1000 when absent')),
          emails: commaList('addresses'),
          ids: commaList('contact ids'),
        }),
        response: { 200: t.Array(BookContactSchema), ...withNotFound },
        detail: { summary: "A page of the book's contacts, newest first", tags },
      },
    )
    .post('/:contactBookId/contacts', async ({ params, body, caller, request, server }) => {
      const now = deps.clock.now()
      const prepared = await bookContacts.prepareListOptIns(deps.db, caller.project.id, params.contactBookId, [body], mail(), now)
      return deps.writer.run((trx) => bookContacts.addBookContact(trx, caller.project.id, params.contactBookId, body, viaApi(request, server), mail(), now, prepared))
    }, {
      params: BookParams,
      body: NewContact,
      response: { 200: ContactId, ...withNotFound },
      detail: { summary: 'Add a contact to the book (created, or updated by email); with double opt-in, pending until it confirms by email', tags },
    })
    .post('/:contactBookId/contacts/bulk', async ({ params, body, caller, request, server }) => {
      // The confirmations are built before the transaction: 1,000 of them would hold the writer.
      const now = deps.clock.now()
      const prepared = await bookContacts.prepareListOptIns(deps.db, caller.project.id, params.contactBookId, body, mail(), now)
      return deps.writer.run((trx) => bookContacts.addBookContacts(trx, caller.project.id, params.contactBookId, body, viaApi(request, server), mail(), now, prepared))
    }, {
      params: BookParams,
      body: t.Array(NewContact, { minItems: 1, maxItems: 1000, error: 'must be a list of 1 to 1000 contacts' }),
      response: { 200: t.Object({ message: t.String(), count: t.Integer() }), ...withNotFound },
      detail: { summary: 'Add up to 1,000 contacts at once, all or none', tags },
    })
    .delete('/:contactBookId/contacts/bulk', ({ params, body, caller }) => write((trx, now) => bookContacts.removeBookContacts(trx, caller.project.id, params.contactBookId, body.contactIds, now)), {
      params: BookParams,
      body: strictObject({ contactIds: t.Array(t.String(), { minItems: 1, maxItems: 1000, error: 'must be a list of 1 to 1000 contact ids' }) }),
      response: { 200: t.Object({ success: t.Boolean(), count: t.Integer() }), ...withNotFound },
      detail: { summary: 'Take up to 1,000 contacts out of the book (they stay contacts)', tags },
    })
    .get(
      '/:contactBookId/pending',
      ({ params, query, caller }) => bookContacts.listPendingContacts(deps.db, caller.project.id, params.contactBookId, query.page ?? 1, query.limit ?? 50, deps.clock.now()),
      {
        params: BookParams,
        query: t.Object({
          page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
          limit: t.Optional(intQuery('limit', 1, 1000, 'Page size, 50 when absent')),
        }),
        response: { 200: t.Object({ data: t.Array(PendingContactSchema), total: t.Integer() }), ...withNotFound },
        detail: { summary: 'Contacts waiting to confirm their place in the book (double opt-in), newest first; an expired link says so', tags },
      },
    )
    .post(
      '/:contactBookId/contacts/:contactId/confirmation',
      ({ params, caller, set }) => {
        set.status = 202
        return write((trx, now) => bookContacts.resendConfirmation(trx, caller.project.id, params.contactBookId, params.contactId, mail(), now))
      },
      {
        params: ContactParams,
        response: { 202: t.Object({ contactId: t.String(), expiresAt: t.String() }), ...withNotFound, 409: ErrorSchema, 429: ErrorSchema },
        detail: { summary: 'Send a pending contact a new confirmation link (at most once a minute)', tags },
      },
    )
    .get('/:contactBookId/contacts/:contactId', ({ params, caller }) => bookContacts.getBookContact(deps.db, caller.project.id, params.contactBookId, params.contactId), {
      params: ContactParams,
      response: { 200: BookContactWithConsent, ...withNotFound },
      detail: { summary: "Get one of the book's contacts, with the consent it gave by double opt-in", tags },
    })
    .put(
      '/:contactBookId/contacts/:contactId',
      ({ params, body, caller }) => write((trx, now) => bookContacts.putBookContact(trx, caller.project.id, params.contactBookId, params.contactId, body, now)),
      {
        params: ContactParams,
        body: NewContact,
        response: { 200: ContactId, ...withNotFound, 409: ErrorSchema },
        detail: { summary: "Set the address and fields of the book's contact named by the path", tags },
      },
    )
    .patch(
      '/:contactBookId/contacts/:contactId',
      ({ params, body, caller }) => write((trx, now) => bookContacts.updateBookContact(trx, caller.project.id, params.contactBookId, params.contactId, body, now)),
      {
        params: ContactParams,
        body: strictObject(ContactFields),
        response: { 200: ContactId, ...withNotFound },
        detail: { summary: "Update one of the book's contacts", tags },
      },
    )
    .delete('/:contactBookId/contacts/:contactId', ({ params, caller }) => write((trx, now) => bookContacts.removeBookContact(trx, caller.project.id, params.contactBookId, params.contactId, now)), {
      params: ContactParams,
      response: { 200: t.Object({ success: t.Boolean() }), ...withNotFound },
      detail: { summary: 'Take a contact out of the book (it stays a contact)', tags },
    })
}
