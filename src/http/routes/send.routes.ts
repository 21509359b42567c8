import { Elysia, t } from 'elysia'
import { MAX_RECIPIENTS, type SendRequest } from '../../core/emails/send.ts'
import { isoTime } from '../../lib/clock.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, DataField, ErrorSchema, oneOf, strictObject } from '../schemas.ts'
import { acceptEmails } from '../sending.ts'
import { mailboxOf } from '../../core/emails/mailbox.ts'
import { BODY_TYPES, htmlOfBody } from '../../core/emails/markdown.ts'
import { AttachmentSchema, HeadersSchema, idempotencyKeyOf, MailboxObject, trackingOf, TrackingFields } from './send-schemas.ts'

const Recipient = t.Union([t.String(), MailboxObject])

const PlunkSendBody = strictObject({
  to: t.Union([Recipient, t.Array(Recipient, { minItems: 1, maxItems: MAX_RECIPIENTS, error: `must be 1 to ${MAX_RECIPIENTS} recipients` })]),
  subject: t.Optional(t.String()),
  body: t.Optional(t.String({ description: 'The body: HTML, or Markdown when type is markdown' })),
  type: t.Optional(oneOf(BODY_TYPES, 'How body is written: html (sent as it is) or markdown (rendered to HTML, then sent as an HTML body is); html when absent')),
  from: t.Optional(t.Union([t.String(), MailboxObject])),
  name: t.Optional(t.String({ description: 'Sender name' })),
  reply: t.Optional(t.String({ description: 'Reply-To address' })),
  headers: t.Optional(HeadersSchema),
  subscribed: t.Optional(t.Boolean({ description: 'Subscription of new contacts (false when absent)' })),
  data: t.Optional(DataField),
  template: t.Optional(t.String({ description: 'Template id: its subject and body, with data filled in' })),
  attachments: t.Optional(t.Array(AttachmentSchema)),
  ...TrackingFields,
}, { title: 'PlunkSend' })

type PlunkSend = typeof PlunkSendBody.static

/** Plunk's send: one email per recipient, each recipient upserted as a contact. */
function requestsOf(body: PlunkSend): SendRequest[] {
  const recipients = Array.isArray(body.to) ? body.to : [body.to]
  const from = body.from === undefined ? undefined : mailboxOf(body.from, 'from')
  const html = body.body === undefined ? undefined : htmlOfBody(body.body, body.type)
  return recipients.map((recipient, i) => ({
    from,
    fromName: body.name,
    to: [mailboxOf(recipient, `to[${i}]`)],
    replyTo: body.reply ? [body.reply] : [],
    subject: body.subject,
    html,
    templateId: body.template,
    headers: body.headers,
    attachments: body.attachments,
    contact: { subscribed: body.subscribed, data: body.data },
    ...trackingOf(body),
  }))
}

/** Each recipient is its own email, whose one recipient is to[0]: name it as the body does. */
const plunkField = (body: PlunkSend) => (field: string, index: number) =>
  field.replace(/^to\[0\]/, Array.isArray(body.to) ? `to[${index}]` : 'to')

export const sendRoutes = (deps: HttpDeps) =>
  new Elysia().use(requireKey(deps)).post(
    '/v1/send',
    ({ body, caller, headers }) =>
      acceptEmails(deps, caller, { route: '/v1/send', body, idempotencyKey: idempotencyKeyOf(headers), fieldOf: plunkField(body) }, requestsOf(body), (queued, now) => ({
        success: true as const,
        data: { emails: queued.map((q) => ({ contact: q.contact!, email: q.emailId })), timestamp: isoTime(now) },
      })),
    {
      body: PlunkSendBody,
      response: {
        200: t.Object({
          success: t.Literal(true),
          data: t.Object({
            emails: t.Array(t.Object({ contact: t.Object({ id: t.String(), email: t.String() }), email: t.String() })),
            timestamp: t.String(),
          }),
        }),
        ...authErrors,
        409: ErrorSchema,
        413: ErrorSchema,
      },
      detail: {
        summary: 'Send a transactional email (Plunk form)',
        description: 'One email per recipient; each recipient is created or updated as a contact. Idempotency-Key header supported.',
        tags: ['Sending'],
      },
    },
  )
