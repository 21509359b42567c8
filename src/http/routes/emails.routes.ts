import { Elysia, t } from 'elysia'
import * as emails from '../../core/emails/emails.service.ts'
import type { SendRequest } from '../../core/emails/send.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, booleanQuery, ErrorSchema, intQuery, oneOf, strictObject } from '../schemas.ts'
import { getPreviewHtml, previewDocument, previewHeaders } from '../../core/emails/preview.ts'
import type { EmailStatus } from '../../db/schema.ts'
import { acceptEmails } from '../sending.ts'
import { mailboxOf } from '../../core/emails/mailbox.ts'
import { receiverChecks } from '../../core/emails/receiver.service.ts'
import { returnPath } from '../../delivery/verp.ts'
import { AttachmentSchema, HeadersSchema, idempotencyKeyOf, listOf, timeOf, trackingOf, TrackingFields } from './send-schemas.ts'

const Addresses = t.Union([t.String(), t.Array(t.String())])

export const EMAIL_STATUSES = ['SCHEDULED', 'QUEUED', 'SENT', 'DELIVERED', 'DELIVERY_DELAYED', 'BOUNCED', 'FAILED', 'CANCELLED', 'SUPPRESSED', 'COMPLAINED', 'OPENED', 'CLICKED'] as const satisfies readonly EmailStatus[]

/** A text a list keeps the rows holding: 1 to 254 characters. */
const searchText = (field: string, description: string) =>
  t.String({ minLength: 1, maxLength: 254, description, error: 'must be 1 to 254 characters', 'x-field': field })

const EmailBody = strictObject({
  to: Addresses,
  from: t.String({ description: 'jane@example.com or Jane <jane@example.com>' }),
  subject: t.Optional(t.String()),
  html: t.Optional(t.String()),
  text: t.Optional(t.String()),
  replyTo: t.Optional(Addresses),
  cc: t.Optional(Addresses),
  bcc: t.Optional(Addresses),
  headers: t.Optional(HeadersSchema),
  attachments: t.Optional(t.Array(AttachmentSchema)),
  scheduledAt: t.Optional(t.String({ description: 'ISO 8601; the email waits until then' })),
  templateId: t.Optional(t.String()),
  variables: t.Optional(t.Record(t.String(), t.Any(), { description: 'Values for {{placeholders}}' })),
  inReplyToId: t.Optional(
    t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Null()], {
      description: "The id of one of the project's emails this one answers: In-Reply-To and References thread it under that one",
    }),
  ),
  ...TrackingFields,
}, { title: 'SendEmail' })

type EmailInput = typeof EmailBody.static

/** Fields as useSend names them; in a batch, prefixed with the email's index. */
const useSendField = (batch: boolean) => (field: string, index: number) =>
  `${batch ? `[${index}].` : ''}${field === 'template' ? 'templateId' : field === 'body' ? 'html' : field}`

/** useSend's email: one message to every recipient; `at` prefixes field names in batches. */
function requestOf(body: EmailInput, at = ''): SendRequest {
  return {
    from: mailboxOf(body.from, `${at}from`),
    to: listOf(body.to).map((to, i) => mailboxOf(to, `${at}to[${i}]`)),
    cc: listOf(body.cc),
    bcc: listOf(body.bcc),
    replyTo: listOf(body.replyTo),
    subject: body.subject,
    html: body.html,
    text: body.text,
    headers: body.headers,
    attachments: body.attachments,
    scheduledAt: timeOf(body.scheduledAt, `${at}scheduledAt`),
    templateId: body.templateId,
    variables: body.variables,
    ...(typeof body.inReplyToId === 'string' && { inReplyToId: body.inReplyToId }),
    ...trackingOf(body),
  }
}

const EmailEventSchema = t.Object({ emailId: t.String(), status: t.String(), createdAt: t.String(), data: t.Any() }, { title: 'EmailEvent' })

const EmailSchema = t.Object({
  id: t.String(),
  teamId: t.Integer(),
  to: t.Array(t.String()),
  from: t.String(),
  subject: t.String(),
  html: t.Union([t.String(), t.Null()]),
  text: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
  emailEvents: t.Array(EmailEventSchema),
  replyTo: t.Array(t.String()),
  cc: t.Array(t.String()),
  bcc: t.Array(t.String()),
  status: t.String(),
  latestStatus: t.String({ description: "useSend's name of status: the last event's" }),
  domainId: t.Union([t.Integer(), t.Null()], { description: 'The sending domain; null once it is removed' }),
  messageId: t.String(),
  scheduledAt: t.Union([t.String(), t.Null()]),
}, { title: 'Email' })

const DeliverySchema = t.Object({
  recipient: t.String(),
  state: t.UnionEnum(['scheduled', 'queued', 'sending', 'deferred', 'paused', 'delivered', 'bounced', 'failed', 'cancelled', 'suppressed']),
  attempts: t.Integer(),
  lastResponse: t.Union([t.String(), t.Null()], { description: "The last server's reply; for a deferral, what happened to each MX host and address" }),
  mx: t.Union([t.String(), t.Null()], { description: 'The MX host the last attempt that reached a server used' }),
  ip: t.Union([t.String(), t.Null()]),
  tls: t.Union(
    [
      t.Object({
        version: t.String(),
        cipher: t.String(),
        verified: t.Boolean({ description: 'The certificate chains to a trusted CA and names the MX host' }),
        mtaSts: t.Optional(t.Object({ mode: t.String(), applied: t.Boolean(), failure: t.Optional(t.String()) })),
      }),
      t.Null(),
    ],
    { description: 'null: plain text, or no server reached yet' },
  ),
  dkimDomains: t.Array(t.String(), { description: 'The d= domains of its DKIM signatures' }),
  nextAttemptAt: t.Union([t.String(), t.Null()], { description: 'While it waits' }),
  updatedAt: t.String(),
}, { title: 'EmailDelivery' })

const EmailSummarySchema = t.Omit(EmailSchema, ['emailEvents'], { title: 'EmailSummary' })

const EmailCheckSchema = t.Object(
  {
    id: t.String({ description: 'dkim, dkim-alignment, dkim-headers, message-id, date, list-unsubscribe, feedback-id, text-part, tracking, return-path', examples: ['dkim'] }),
    name: t.String({ examples: ['DKIM signature (d=example.com s=ms1)'] }),
    status: t.UnionEnum(['pass', 'warn', 'fail', 'info'], { description: 'info: said, not judged (such as a check that does not apply, or could not be made without DNS)' }),
    detail: t.String({ examples: ['Passes with the key ms1._domainkey.example.com publishes'] }),
  },
  { title: 'EmailCheck' },
)

const EmailChecksSchema = t.Object(
  {
    emailId: t.String(),
    signed: t.Boolean({ description: 'Whether the first delivery attempt has signed the message yet' }),
    checks: t.Array(EmailCheckSchema),
  },
  { title: 'EmailChecks' },
)

const EmailIdParams = t.Object({ emailId: t.String({ minLength: 3 }) })

/** A domainId of the list's filter: decimal digits, as the path's ids are. */
function domainIdOf(text: string): number {
  if (!/^[0-9]{1,16}$/.test(text) || Number(text) < 1) throw invalid('domainId', 'must be a whole number from 1 up')
  return Number(text)
}

const tags = ['Sending']

export const emailRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/emails' })
    .use(requireKey(deps))
    .post(
      '',
      ({ body, caller, headers }) =>
        acceptEmails(deps, caller, { route: 'POST /api/v1/emails', body, idempotencyKey: idempotencyKeyOf(headers), fieldOf: useSendField(false) }, [requestOf(body)], ([queued]) => ({
          emailId: queued!.emailId,
        })),
      {
        body: EmailBody,
        response: { 200: t.Object({ emailId: t.String() }), ...authErrors, 409: ErrorSchema, 413: ErrorSchema },
        detail: { summary: 'Send an email (useSend form)', description: 'Idempotency-Key header supported.', tags },
      },
    )
    .post(
      '/batch',
      ({ body, caller, headers }) =>
        acceptEmails(
          deps,
          caller,
          { route: 'POST /api/v1/emails/batch', body, idempotencyKey: idempotencyKeyOf(headers), fieldOf: useSendField(true) },
          body.map((email, i) => requestOf(email, `[${i}].`)),
          (queued) => ({ data: queued.map((q) => ({ emailId: q.emailId })) }),
        ),
      {
        body: t.Array(EmailBody, { minItems: 1, maxItems: 100, error: 'must be 1 to 100 emails' }),
        response: { 200: t.Object({ data: t.Array(t.Object({ emailId: t.String() })) }), ...authErrors, 409: ErrorSchema, 413: ErrorSchema },
        detail: { summary: 'Send up to 100 emails at once; all are queued or none', tags },
      },
    )
    .get(
      '',
      ({ query, caller }) =>
        emails.listEmails(deps.db, caller.project.id, {
          page: query.page ?? 1,
          limit: query.limit ?? 20,
          startDate: timeOf(query.startDate, 'startDate'),
          endDate: timeOf(query.endDate, 'endDate'),
          domainIds: query.domainId === undefined ? undefined : listOf(query.domainId).map(domainIdOf),
          status: query.status,
          recipient: query.recipient,
          sender: query.sender,
          subject: query.subject,
        }),
      {
        query: t.Object({
          page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
          limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 20 when absent')),
          startDate: t.Optional(t.String({ description: 'ISO 8601 date-time: emails created then or later' })),
          endDate: t.Optional(t.String({ description: 'ISO 8601 date-time: emails created then or earlier' })),
          domainId: t.Optional(
            t.Union([t.String(), t.Array(t.String())], { description: `Emails from this sending domain of the project; repeated, from any of them (at most ${emails.MAX_LIST_DOMAINS})` }),
          ),
          status: t.Optional(oneOf(EMAIL_STATUSES, 'Emails whose latest status is this')),
          recipient: t.Optional(searchText('recipient', 'Part of a recipient address (to, cc or bcc), in any case')),
          sender: t.Optional(searchText('sender', 'Part of the From, in any case')),
          subject: t.Optional(searchText('subject', 'Part of the subject, in any case')),
        }),
        response: { 200: t.Object({ data: t.Array(EmailSummarySchema), count: t.Integer({ description: 'Emails the filters keep, on every page' }) }), ...authErrors, 404: ErrorSchema },
        detail: { summary: 'List emails, newest first', tags },
      },
    )
    .get('/:emailId', ({ params, caller }) => emails.getEmail(deps.db, caller.project.id, params.emailId), {
      params: EmailIdParams,
      response: { 200: t.Composite([EmailSchema, t.Object({ deliveries: t.Array(DeliverySchema) })]), ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Get an email with its events and, for each recipient, how its delivery went', tags },
    })
    .patch(
      '/:emailId',
      ({ params, body, caller }) => {
        const at = timeOf(body.scheduledAt, 'scheduledAt')
        if (at === undefined) throw invalid('scheduledAt', 'is required')
        const now = deps.clock.now()
        return deps.writer.run((trx) => emails.reschedule(trx, caller.project.id, params.emailId, at, deps.sendSettings.maxAgeMs, now))
      },
      {
        params: EmailIdParams,
        body: strictObject({ scheduledAt: t.String() }),
        response: { 200: t.Object({ emailId: t.String() }), ...authErrors, 400: ErrorSchema, 404: ErrorSchema },
        detail: { summary: 'Change when a scheduled email is sent', tags },
      },
    )
    .post(
      '/:emailId/cancel',
      ({ params, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => emails.cancel(trx, caller.project.id, params.emailId, now))
      },
      {
        params: EmailIdParams,
        response: { 200: t.Object({ emailId: t.String() }), ...authErrors, 400: ErrorSchema, 404: ErrorSchema },
        detail: { summary: 'Cancel a scheduled email', tags },
      },
    )
    .get(
      '/:emailId/checks',
      ({ params, caller }) =>
        receiverChecks(deps.db, caller.project.id, params.emailId, {
          links: deps.links,
          now: deps.clock.now(),
          envelopeOf: (deliveryId, host) => returnPath(deps.config.secret, deliveryId, host),
        }),
      {
        params: EmailIdParams,
        response: { 200: EmailChecksSchema, ...authErrors, 404: ErrorSchema, 410: ErrorSchema },
        detail: {
          summary: "Run a receiver's checks on the message as its recipients got it",
          description:
            "DKIM verified by mailauth against the keys Mailstead holds for the project's domains (DNS is never asked: a signature by a key held nowhere here is reported as not checked), what the signature covers, From alignment, Message-ID, Date, one-click unsubscribe and Feedback-ID on bulk mail, a text part naming the HTML's links, tracking on transactional mail and an opaque bounce token.",
          tags,
        },
      },
    )
    .get(
      '/:emailId/raw',
      async ({ params, caller, set }) => {
        const raw = await emails.getRawMessage(deps.db, caller.project.id, params.emailId)
        set.headers['content-type'] = 'message/rfc822'
        set.headers['content-disposition'] = `attachment; filename="${params.emailId.replace(/[^\w-]/g, '')}.eml"`
        return raw
      },
      {
        params: EmailIdParams,
        detail: {
          summary: 'Download the message as its recipients got it (message/rfc822): its DKIM signature, once its first attempt made one, then the message',
          tags,
          responses: {
            200: { description: 'The message', content: { 'message/rfc822': { schema: { type: 'string', format: 'binary' } } } },
            404: { description: 'No such email in the project (the error body)' },
            410: { description: 'Retention deleted the message (the error body)' },
          },
        },
      },
    )

/**
 * An email's HTML as a sandboxed document for the console's preview frame (src/core/emails/preview.ts
 * says what its policy allows). A frame cannot send headers, so a session names the project in
 * ?projectId= here, and only here; a key's project is its own, whatever the query says.
 */
export const emailPreviewRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/emails' }).use(requireKey(deps, { projectQuery: true })).get(
    '/:emailId/preview',
    async ({ params, query, caller, set }) => {
      const html = await getPreviewHtml(deps.db, caller.project.id, params.emailId)
      Object.assign(set.headers, previewHeaders(query.remoteImages === true))
      return previewDocument(html)
    },
    {
      params: EmailIdParams,
      query: t.Object({
        projectId: t.Optional(t.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'With a session and no X-Project-Id header: the project', error: 'must be a project id', 'x-field': 'projectId' })),
        remoteImages: t.Optional(booleanQuery('remoteImages', 'Let the document load images from other servers (which tells their owner it was read); false when absent')),
      }),
      detail: {
        summary: "Show an email's HTML as a sandboxed document (for a frame)",
        description:
          "The HTML part as text/html under a Content-Security-Policy that sandboxes it (no scripts, no forms, an origin of its own, links open in a new tab) and blocks images from elsewhere unless remoteImages=true. A signed-in person's frame names the project in projectId, as it cannot send X-Project-Id.",
        tags,
        responses: {
          200: { description: 'The HTML document', content: { 'text/html': { schema: { type: 'string' } } } },
          404: { description: 'No such email in the project, or it has no HTML part (the error body)' },
          410: { description: 'Retention deleted the message (the error body)' },
        },
      },
    },
  )
