import { t } from 'elysia'
import { oneOf } from '../schemas.ts'
import { SegmentSchema } from './segments.routes.ts'

const Addresses = t.Array(t.String())
const Time = t.Union([t.String({ format: 'date-time' }), t.Null()])
const Statuses = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED'] as const

export const StatusField = oneOf(Statuses)

/** The dashboard's Campaign (Plunk's form). */
export const CampaignSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  subject: t.String(),
  body: t.String(),
  from: t.String(),
  fromName: t.Union([t.String(), t.Null()]),
  replyTo: t.Union([t.String(), t.Null()]),
  audienceType: oneOf(['ALL', 'SEGMENT', 'FILTERED']),
  audienceCondition: t.Unknown(),
  segmentId: t.Union([t.String(), t.Null()]),
  status: StatusField,
  totalRecipients: t.Integer(),
  sentCount: t.Integer(),
  deliveredCount: t.Integer(),
  openedCount: t.Integer(),
  clickedCount: t.Integer(),
  bouncedCount: t.Integer(),
  scheduledFor: Time,
  sentAt: Time,
  error: t.Union([t.String({ description: 'Why the campaign paused itself, when it did' }), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  segment: t.Union([SegmentSchema, t.Null()]),
}, { title: 'Campaign' })

export const StatsSchema = t.Object({
  totalRecipients: t.Integer(),
  queuedCount: t.Integer({ description: 'Handed to the delivery queue so far' }),
  sentCount: t.Integer(),
  deliveredCount: t.Integer(),
  openedCount: t.Integer(),
  clickedCount: t.Integer(),
  bouncedCount: t.Integer(),
  hardBouncedCount: t.Integer(),
  complainedCount: t.Integer(),
  unsubscribedCount: t.Integer(),
  openRate: t.Number({ description: 'Percent of those sent' }),
  clickRate: t.Number(),
  bounceRate: t.Number(),
  deliveryRate: t.Number(),
  expectedFinishAt: t.Union([t.String(), t.Null()], {
    description: "While this server warms up: when the campaign's last message may go under the daily caps of the large providers (the start of that day, UTC); null when no cap holds it back",
  }),
}, { title: 'CampaignStats' })

/** useSend's Campaign: the interface's v1 form, every field present. */
export const V1CampaignSchema = t.Object({
  id: t.String(),
  name: t.String(),
  from: t.String(),
  subject: t.String(),
  previewText: t.Union([t.String(), t.Null()]),
  contactBookId: t.Union([t.String(), t.Null()]),
  html: t.Union([t.String(), t.Null()]),
  content: t.Union([t.String(), t.Null()]),
  status: StatusField,
  scheduledAt: Time,
  batchSize: t.Integer(),
  batchWindowMinutes: t.Integer(),
  total: t.Integer(),
  sent: t.Integer(),
  delivered: t.Integer(),
  opened: t.Integer(),
  clicked: t.Integer(),
  unsubscribed: t.Integer(),
  bounced: t.Integer(),
  hardBounced: t.Integer(),
  complained: t.Integer(),
  replyTo: Addresses,
  cc: Addresses,
  bcc: Addresses,
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'V1Campaign' })
