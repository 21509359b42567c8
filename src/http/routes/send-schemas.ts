import { t } from 'elysia'
import { invalid } from '../../lib/errors.ts'
import { strictObject } from '../schemas.ts'

export const AttachmentSchema = strictObject({
  filename: t.String({ description: 'File name shown to the recipient' }),
  content: t.String({ description: 'The file, base64' }),
  contentType: t.Optional(t.String({ description: 'MIME type, e.g. application/pdf' })),
}, { title: 'Attachment' })

export const HeadersSchema = t.Record(t.String(), t.String(), { description: 'Extra headers; names and values on one line' })

/** Per-message tracking switches: absent, the sending domain's default for the message's kind (marketing or transactional). */
export const TrackingFields = {
  trackOpens: t.Optional(t.Boolean({ description: "Open tracking of this email (a pixel); absent: the domain's default for its kind, off for transactional mail unless the domain turns it on" })),
  trackClicks: t.Optional(t.Boolean({ description: "Click tracking of this email's links (never links that carry a secret, unless marked data-track); absent: the domain's default for its kind" })),
}

/** The tracking a request asks for, as SendRequest takes it. */
export const trackingOf = (body: { trackOpens?: boolean; trackClicks?: boolean }) => ({
  ...(body.trackOpens !== undefined && { trackOpens: body.trackOpens }),
  ...(body.trackClicks !== undefined && { trackClicks: body.trackClicks }),
})

export const MailboxObject = strictObject({ name: t.Optional(t.String()), email: t.String() }, { title: 'Mailbox' })

export const listOf = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value])

/** An ISO 8601 time as epoch ms; a 422 naming the field when it is not one. */
export function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) throw invalid(field, 'must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z')
  return ms
}

export const idempotencyKeyOf = (headers: Record<string, string | undefined>) => headers['idempotency-key']
