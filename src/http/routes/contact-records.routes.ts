import { Elysia, t } from 'elysia'
import { findContactRow } from '../../core/contacts/index.ts'
import { contactEmails } from '../../core/emails/index.ts'
import { contactTimeline } from '../../core/events/index.ts'
import { eraseContact, exportContact } from '../../core/privacy/index.ts'
import { contactMemberships } from '../../core/segments/index.ts'
import { contactRuns } from '../../core/workflows/index.ts'
import { notFound } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ContactSchema, ErrorSchema, intQuery, oneOf } from '../schemas.ts'
import { EMAIL_STATUSES } from './emails.routes.ts'
import { ExecutionSchema } from './workflow-schemas.ts'

/*
 * What a contact's page shows beside the contact, each read by the entity that owns it: its
 * events, the emails sent to it, its segments and books (with the consent given to each), its
 * workflow runs; and its privacy: everything held about it as one JSON document, and its erasure.
 */

const IdParams = t.Object({ id: t.String({ description: 'Contact id' }) })
const withNotFound = { ...authErrors, 404: ErrorSchema }
const tags = ['Contacts']
const Time = t.String({ format: 'date-time' })
const PageQuery = t.Object({
  page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
  limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 20 when absent')),
})

const TimelineEventSchema = t.Object({ id: t.String(), name: t.String(), data: t.Unknown(), createdAt: Time }, { title: 'ContactEvent' })

const ContactEmailSchema = t.Object(
  {
    id: t.String(),
    from: t.String(),
    to: t.Array(t.String()),
    cc: t.Array(t.String()),
    bcc: t.Array(t.String()),
    subject: t.String(),
    status: oneOf(EMAIL_STATUSES, 'The latest status'),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'ContactEmail' },
)

const ConsentSchema = t.Object(
  {
    confirmedAt: Time,
    method: t.String({ description: "How: 'confirmation' (the double opt-in link's button), or how it was listed without one ('api', 'form', 'preferences')" }),
    clientIp: t.Union([t.String(), t.Null()]),
    userAgent: t.Union([t.String(), t.Null()]),
    agreedTo: t.Object(
      { book: t.String(), subject: t.Union([t.String(), t.Null()]), via: t.Optional(t.String()), form: t.Optional(t.String()) },
      { description: "The book's name, the confirmation's subject (null without one), how the contact came (via) and the form's title when a form" },
    ),
  },
  { title: 'ContactConsent' },
)

const MembershipsSchema = t.Object(
  {
    segments: t.Array(
      t.Object({
        id: t.String(),
        name: t.String(),
        type: oneOf(['DYNAMIC', 'STATIC']),
        since: t.Union([Time, t.Null()], { description: 'When it was listed, or entered a tracked segment; null: its condition matches it now, untracked' }),
      }),
    ),
    books: t.Array(
      t.Object({
        id: t.String(),
        name: t.String(),
        emoji: t.String(),
        state: oneOf(['listed', 'pending'], 'listed: a member; pending: asked to confirm by email (double opt-in), not yet a member'),
        since: Time,
        consent: t.Union([ConsentSchema, t.Null()], { description: 'The consent it gave by double opt-in; null when it gave none (added without it)' }),
      }),
    ),
  },
  { title: 'ContactMemberships' },
)

const RunSchema = t.Composite([ExecutionSchema, t.Object({ workflowName: t.String() })], { title: 'ContactWorkflowRun' })

const ExportSchema = t.Object(
  {
    exportedAt: Time,
    contact: ContactSchema,
    events: t.Array(TimelineEventSchema),
    emails: t.Array(
      t.Composite([
        ContactEmailSchema,
        t.Object({
          events: t.Array(t.Object({ status: t.String(), data: t.Unknown(), createdAt: Time })),
          deliveries: t.Array(t.Object({ recipient: t.String(), state: t.String(), attempts: t.Integer(), lastResponse: t.Union([t.String(), t.Null()]), updatedAt: Time })),
        }),
      ]),
    ),
    segments: MembershipsSchema.properties.segments,
    books: MembershipsSchema.properties.books,
    optIns: t.Array(
      t.Object({
        bookId: t.String(),
        requestedAt: Time,
        confirmedAt: t.Union([Time, t.Null()]),
        method: t.Union([t.String(), t.Null()]),
        clientIp: t.Union([t.String(), t.Null()]),
        userAgent: t.Union([t.String(), t.Null()]),
        agreedTo: t.Unknown(),
      }),
      { description: 'Every request to join a book by double opt-in, and the consent given' },
    ),
    workflowRuns: t.Array(RunSchema),
  },
  { title: 'ContactPrivacyExport' },
)

const ErasedSchema = t.Object(
  {
    id: t.String(),
    erased: t.Object(
      { events: t.Integer(), emails: t.Integer(), webhookDeliveries: t.Integer(), workflowRuns: t.Integer() },
      { description: 'How many rows of each kind went with the contact' },
    ),
    suppression: t.String({ description: 'The suppression kept instead of the address: sha256: and the SHA-256 of the address, lower-cased' }),
  },
  { title: 'ContactErased' },
)

export const contactRecordRoutes = (deps: HttpDeps) => {
  const contactOf = async (projectId: number, id: string) => {
    const row = await findContactRow(deps.db, projectId, id)
    if (!row) throw notFound('Contact')
    return row
  }
  return new Elysia({ prefix: '/contacts' })
    .use(requireKey(deps))
    .get(
      '/:id/events',
      async ({ params, query, caller }) => {
        const contact = await contactOf(caller.project.id, params.id)
        return contactTimeline(deps.db, caller.project.id, contact.id, query.limit ?? 50, query.cursor)
      },
      {
        params: IdParams,
        query: t.Object({
          limit: t.Optional(intQuery('limit', 1, 200, 'Page size, 50 when absent')),
          cursor: t.Optional(t.String({ maxLength: 20, description: 'The cursor of the previous page', error: 'must be a cursor returned by a previous page', 'x-field': 'cursor' })),
        }),
        response: { 200: t.Object({ events: t.Array(TimelineEventSchema), cursor: t.Union([t.String(), t.Null()]), hasMore: t.Boolean() }), ...withNotFound },
        detail: { summary: "The contact's events, newest first, by cursor", tags },
      },
    )
    .get(
      '/:id/emails',
      async ({ params, query, caller }) => {
        const contact = await contactOf(caller.project.id, params.id)
        return contactEmails(deps.db, caller.project.id, { contactId: contact.id, emailKey: contact.email_key }, query.page ?? 1, query.limit ?? 20)
      },
      {
        params: IdParams,
        query: PageQuery,
        response: { 200: t.Object({ data: t.Array(ContactEmailSchema), count: t.Integer() }), ...withNotFound },
        detail: { summary: 'The emails sent to the contact (as a contact, or to its address in to, cc or bcc), newest first, with their latest status', tags },
      },
    )
    .get(
      '/:id/memberships',
      async ({ params, caller }) => {
        const contact = await contactOf(caller.project.id, params.id)
        return contactMemberships(deps.db, caller.project.id, contact.id, deps.clock.now())
      },
      {
        params: IdParams,
        response: { 200: MembershipsSchema, ...withNotFound },
        detail: { summary: 'The segments the contact is a member of now, and the contact books it is listed in or pending for, each with the consent it gave', tags },
      },
    )
    .get(
      '/:id/runs',
      async ({ params, query, caller }) => {
        const contact = await contactOf(caller.project.id, params.id)
        const page = query.page ?? 1
        return contactRuns(deps.db, caller.project.id, contact.id, page, query.limit ?? 20)
      },
      {
        params: IdParams,
        query: PageQuery,
        response: { 200: t.Object({ executions: t.Array(RunSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...withNotFound },
        detail: { summary: "The contact's workflow runs, newest first, with their state", tags },
      },
    )
    .get(
      '/:id/privacy-export',
      async ({ params, caller, set }) => {
        const exported = await exportContact(deps.db, caller.project.id, params.id, deps.clock.now())
        set.headers['content-disposition'] = `attachment; filename="contact-${exported.contact.id}.json"`
        return exported
      },
      {
        params: IdParams,
        response: { 200: ExportSchema, ...withNotFound },
        detail: {
          summary: 'Everything held about the contact, as a JSON attachment: its data, subscription, events, emails (metadata and states), segments, books with consents, opt-in requests and workflow runs',
          tags,
        },
      },
    )
    .post('/:id/erase', ({ params, caller }) => deps.writer.run((trx) => eraseContact(trx, caller.project.id, params.id, deps.clock.now())), {
      params: IdParams,
      response: { 200: ErasedSchema, ...withNotFound },
      detail: {
        summary:
          'Erase the contact: it, its events, memberships, consents, workflow runs, the emails sent to it and the webhook deliveries naming it are deleted; its address stays suppressed by its hash only. Owners and admins',
        tags,
      },
    })
}
