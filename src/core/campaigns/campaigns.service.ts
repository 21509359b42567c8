import type { CampaignStatus, Db } from '../../db/schema.ts'
import type { Direction } from '../../db/sorting.ts'
import { invalid, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { requireAddress } from '../../lib/address.ts'
import { checkSubject } from '../templates/subject.ts'
import { senderDomain } from '../emails/send.ts'
import { checkCondition } from '../segments/condition.ts'
import { findSegment } from '../segments/index.ts'
import { getSegment } from '../segments/segments.service.ts'
import { audienceSize } from './audience.ts'
import { DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE, toDashboardCampaign, type CampaignInput, type CampaignRow } from './campaign.ts'
import * as repo from './campaigns.repository.ts'
import { requireAllowed } from './transitions.ts'

export async function requireCampaign(db: Db, projectId: number, id: string): Promise<CampaignRow> {
  const row = await repo.findCampaign(db, projectId, id)
  if (!row) throw notFound('Campaign')
  return row
}

const checkName = (name: string) => {
  if (name.trim() === '' || name.length > 200) throw invalid('name', 'must be 1 to 200 characters')
  return name.trim()
}

const addresses = (list: string[] | undefined, field: string) => JSON.stringify((list ?? []).map((a, i) => requireAddress(a, `${field}[${i}]`).address))

const checkRange = (value: number | undefined, field: string, min: number, max: number, fallback: number) => {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < min || value > max) throw invalid(field, `must be a whole number from ${min} to ${max}`)
  return value
}

/** The audience columns, checked: a segment of this project, or a valid condition. */
async function audienceColumns(db: Db, projectId: number, input: CampaignInput) {
  if (input.audienceType === 'SEGMENT') {
    if (!input.segmentId) throw invalid('segmentId', 'is required when audienceType is SEGMENT')
    if (!(await findSegment(db, projectId, input.segmentId))) throw invalid('segmentId', 'no segment with this id in this project')
    return { audience_type: 'SEGMENT' as const, segment_id: input.segmentId, audience_condition: null }
  }
  if (input.audienceType === 'FILTERED') {
    if (input.audienceCondition === undefined || input.audienceCondition === null) throw invalid('audienceCondition', 'is required when audienceType is FILTERED')
    return { audience_type: 'FILTERED' as const, segment_id: null, audience_condition: JSON.stringify(checkCondition(input.audienceCondition, 'audienceCondition')) }
  }
  return { audience_type: 'ALL' as const, segment_id: null, audience_condition: null }
}

/** Every column a campaign's input decides, checked; the sender's domain must be verified. */
async function columnsOf(db: Db, projectId: number, input: CampaignInput) {
  if (!input.html && !input.content) throw invalid('body', 'give the body (html or content)')
  const from = requireAddress(input.from.address, 'from').address
  await senderDomain(db, projectId, from)
  return {
    name: checkName(input.name),
    description: input.description ?? null,
    subject: checkSubject(input.subject),
    html: input.html || null,
    content: input.content || null,
    preview_text: input.previewText || null,
    from_address: from,
    from_name: input.from.name?.trim() || null,
    reply_to: addresses(input.replyTo, 'replyTo'),
    cc: addresses(input.cc, 'cc'),
    bcc: addresses(input.bcc, 'bcc'),
    ...(await audienceColumns(db, projectId, input)),
    batch_size: checkRange(input.batchSize, 'batchSize', 1, MAX_BATCH_SIZE, DEFAULT_BATCH_SIZE),
    batch_window_minutes: checkRange(input.batchWindowMinutes, 'batchWindowMinutes', 0, 1440, 0),
  }
}

/** A new DRAFT campaign; its total is the size its audience has now. */
export async function createCampaign(db: Db, projectId: number, input: CampaignInput, now: number): Promise<CampaignRow> {
  const columns = await columnsOf(db, projectId, input)
  const total = await audienceSize(db, { project_id: projectId, ...columns }, now)
  return repo.insertCampaign(db, { id: newId(), project_id: projectId, ...columns, status: 'DRAFT', total, created_at: now, updated_at: now })
}

/** The fields given change (PUT and PATCH alike), while the campaign is DRAFT or SCHEDULED. */
export async function updateCampaign(db: Db, projectId: number, id: string, patch: Partial<CampaignInput>, now: number): Promise<CampaignRow> {
  const row = await requireCampaign(db, projectId, id)
  requireAllowed(row.status, 'edit')
  const columns = await columnsOf(db, projectId, { ...inputOf(row), ...definedOnly(patch) })
  const total = await audienceSize(db, { project_id: projectId, ...columns }, now)
  return repo.updateCampaignRow(db, id, { ...columns, total, updated_at: now })
}

const definedOnly = <T extends object>(patch: T): Partial<T> => Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>

/** A stored campaign as input again, so that a partial change is checked whole. */
const inputOf = (row: CampaignRow): CampaignInput => ({
  name: row.name,
  description: row.description,
  subject: row.subject,
  html: row.html,
  content: row.content,
  previewText: row.preview_text,
  from: { address: row.from_address, ...(row.from_name && { name: row.from_name }) },
  replyTo: JSON.parse(row.reply_to),
  cc: JSON.parse(row.cc),
  bcc: JSON.parse(row.bcc),
  audienceType: row.audience_type,
  segmentId: row.segment_id,
  audienceCondition: row.audience_condition === null ? null : JSON.parse(row.audience_condition),
  batchSize: row.batch_size,
  batchWindowMinutes: row.batch_window_minutes,
})

export async function deleteCampaign(db: Db, projectId: number, id: string): Promise<CampaignRow> {
  const row = await requireCampaign(db, projectId, id)
  requireAllowed(row.status, 'delete')
  await repo.deleteCampaignRow(db, id)
  return row
}

/** What a campaign list may be sorted by, with the column each names. Each has its index (migration 0033). */
export const CAMPAIGN_SORTS = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' } as const
export type CampaignSort = keyof typeof CAMPAIGN_SORTS

export interface CampaignPageQuery {
  page: number
  pageSize: number
  status?: CampaignStatus
  search?: string
  sort?: CampaignSort
  dir?: Direction
}

/** One page, newest first unless sorted otherwise; the id breaks ties. */
export const listCampaigns = (db: Db, projectId: number, query: CampaignPageQuery) =>
  repo.pageCampaigns(db, projectId, { status: query.status, search: query.search }, query.page, query.pageSize, {
    column: CAMPAIGN_SORTS[query.sort ?? 'createdAt'],
    dir: query.dir ?? 'desc',
  })

/** The dashboard form, with the campaign's segment (and its current member count) embedded. */
export async function dashboardCampaign(db: Db, row: CampaignRow, now: number) {
  const segment = row.segment_id ? await getSegment(db, row.project_id, row.segment_id, now).catch(() => null) : null
  return toDashboardCampaign(row, segment)
}
