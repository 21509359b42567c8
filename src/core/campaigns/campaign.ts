import type { Selectable } from 'kysely'
import type { AudienceType, CampaignTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { conditionAsAnswered, type Condition } from '../segments/condition.ts'
import type { Segment } from '../segments/segment.ts'

export type CampaignRow = Selectable<CampaignTable>

const listOf = (json: string): string[] => JSON.parse(json)
const timeOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms))

/** The sender as a header shows it: `Name <address>`, or the address alone. */
export const senderOf = (row: Pick<CampaignRow, 'from_address' | 'from_name'>) =>
  row.from_name ? `${row.from_name} <${row.from_address}>` : row.from_address

/** The dashboard's Campaign (Plunk's form), with its segment embedded when it has one. */
export function toDashboardCampaign(row: CampaignRow, segment: Segment | null = null) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    subject: row.subject,
    body: row.html ?? row.content ?? '',
    from: row.from_address,
    fromName: row.from_name,
    replyTo: listOf(row.reply_to)[0] ?? null,
    audienceType: row.audience_type,
    audienceCondition: row.audience_condition === null ? null : conditionAsAnswered(JSON.parse(row.audience_condition) as Condition),
    segmentId: row.segment_id,
    status: row.status,
    totalRecipients: row.total,
    sentCount: row.sent,
    deliveredCount: row.delivered,
    openedCount: row.opened,
    clickedCount: row.clicked,
    bouncedCount: row.bounced,
    scheduledFor: timeOrNull(row.scheduled_at),
    sentAt: timeOrNull(row.sent_at),
    error: row.error,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    segment,
  }
}

/** useSend's Campaign: every field of the interface's v1 form, always present. */
export function toV1Campaign(row: CampaignRow) {
  return {
    id: row.id,
    name: row.name,
    from: senderOf(row),
    subject: row.subject,
    previewText: row.preview_text,
    contactBookId: row.audience_type === 'SEGMENT' ? row.segment_id : null,
    html: row.html,
    content: row.content,
    status: row.status,
    scheduledAt: timeOrNull(row.scheduled_at),
    batchSize: row.batch_size,
    batchWindowMinutes: row.batch_window_minutes,
    total: row.total,
    sent: row.sent,
    delivered: row.delivered,
    opened: row.opened,
    clicked: row.clicked,
    unsubscribed: row.unsubscribed,
    bounced: row.bounced,
    hardBounced: row.hard_bounced,
    complained: row.complained,
    replyTo: listOf(row.reply_to),
    cc: listOf(row.cc),
    bcc: listOf(row.bcc),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100)

/** The numbers of a campaign, with rates as percentages of what was sent. */
export function campaignStats(row: CampaignRow, handed: number) {
  return {
    totalRecipients: row.total,
    queuedCount: handed,
    sentCount: row.sent,
    deliveredCount: row.delivered,
    openedCount: row.opened,
    clickedCount: row.clicked,
    bouncedCount: row.bounced,
    hardBouncedCount: row.hard_bounced,
    complainedCount: row.complained,
    unsubscribedCount: row.unsubscribed,
    openRate: percent(row.opened, row.sent),
    clickRate: percent(row.clicked, row.sent),
    bounceRate: percent(row.bounced, row.sent),
    deliveryRate: percent(row.delivered, row.sent),
  }
}

/** A campaign as either API gives it, before checks. */
export interface CampaignInput {
  name: string
  description?: string | null
  subject: string
  html?: string | null
  content?: string | null
  previewText?: string | null
  from: { address: string; name?: string }
  replyTo?: string[]
  cc?: string[]
  bcc?: string[]
  audienceType: AudienceType
  segmentId?: string | null
  audienceCondition?: unknown
  batchSize?: number
  batchWindowMinutes?: number
}

export const DEFAULT_BATCH_SIZE = 500
export const MAX_BATCH_SIZE = 100_000
