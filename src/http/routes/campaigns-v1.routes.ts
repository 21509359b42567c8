import { Elysia, t } from 'elysia'
import { pauseCampaign, resumeCampaign, sendCampaign } from '../../core/campaigns/campaign-actions.ts'
import { guardrailSettingsOf } from '../../core/guardrails/guard.ts'
import { MAX_BATCH_SIZE, toV1Campaign, type CampaignInput } from '../../core/campaigns/campaign.ts'
import * as campaigns from '../../core/campaigns/campaigns.service.ts'
import { getBook } from '../../core/segments/contact-books.service.ts'
import type { Db } from '../../db/schema.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, intField, intQuery, strictObject } from '../schemas.ts'
import { StatusField, V1CampaignSchema } from './campaign-schemas.ts'
import { mailboxOf } from '../../core/emails/mailbox.ts'
import { listOf, timeOf } from './send-schemas.ts'

const Addresses = t.Union([t.String(), t.Array(t.String())])
const BatchSize = intField(1, MAX_BATCH_SIZE)

const NewCampaign = strictObject({
  name: t.String({ minLength: 1 }),
  from: t.String({ minLength: 1, description: 'jane@example.com or Jane <jane@example.com>' }),
  subject: t.String({ minLength: 1 }),
  contactBookId: t.String({ minLength: 1, description: 'The contact book (a STATIC segment) to send to' }),
  html: t.Optional(t.String({ description: 'The body; {{email}}, {{data.firstName ?? "there"}}, {{unsubscribeUrl}}' })),
  content: t.Optional(t.String({ description: 'Kept as given; the plain-text body when there is no html' })),
  previewText: t.Optional(t.String()),
  replyTo: t.Optional(Addresses),
  cc: t.Optional(Addresses),
  bcc: t.Optional(Addresses),
  sendNow: t.Optional(t.Boolean()),
  scheduledAt: t.Optional(t.String({ description: 'ISO 8601' })),
  batchSize: t.Optional(BatchSize),
  batchWindowMinutes: t.Optional(intField(0, 1440)),
}, { title: 'V1NewCampaign' })

type NewBody = typeof NewCampaign.static

/** The contact book must be one of this project's. */
async function bookOf(db: Db, projectId: number, id: string): Promise<string> {
  try {
    return (await getBook(db, projectId, id)).id
  } catch (error) {
    if (error instanceof AppError && error.status === 404) throw invalid('contactBookId', 'no contact book with this id in this project')
    throw error
  }
}

const inputOf = (body: NewBody, bookId: string): CampaignInput => ({
  name: body.name,
  subject: body.subject,
  html: body.html,
  content: body.content,
  previewText: body.previewText,
  from: mailboxOf(body.from, 'from'),
  replyTo: listOf(body.replyTo),
  cc: listOf(body.cc),
  bcc: listOf(body.bcc),
  audienceType: 'SEGMENT',
  segmentId: bookId,
  batchSize: body.batchSize,
  batchWindowMinutes: body.batchWindowMinutes,
})

const Params = t.Object({ campaignId: t.String({ minLength: 1 }) })
const Success = t.Object({ success: t.Boolean() })
const errors = { ...authErrors, 404: ErrorSchema, 409: ErrorSchema }
const tags = ['Campaigns (useSend)']
const PAGE_SIZE = 30

export const campaignV1Routes = (deps: HttpDeps) => {
  const write = <T>(work: (trx: Db, now: number) => Promise<T>) => {
    const now = deps.clock.now()
    return deps.writer.run((trx) => work(trx, now))
  }
  return new Elysia({ prefix: '/api/v1/campaigns' })
    .use(requireKey(deps))
    .post(
      '',
      async ({ body, caller }) => {
        if (!body.html && !body.content) throw invalid('html', 'give html or content')
        const at = body.sendNow ? undefined : timeOf(body.scheduledAt, 'scheduledAt')
        const row = await write(async (trx, now) => {
          const created = await campaigns.createCampaign(trx, caller.project.id, inputOf(body, await bookOf(trx, caller.project.id, body.contactBookId)), now)
          if (!body.sendNow && at === undefined) return created
          return sendCampaign(trx, caller.project.id, created.id, { at, atField: 'scheduledAt' }, now)
        })
        return toV1Campaign(row)
      },
      { body: NewCampaign, response: { 200: V1CampaignSchema, ...errors }, detail: { summary: 'Create a campaign for a contact book; sendNow or scheduledAt sends it', tags } },
    )
    .get(
      '',
      async ({ query, caller }) => {
        const page = query.page ?? 1
        const { rows, total } = await campaigns.listCampaigns(deps.db, caller.project.id, { page, pageSize: PAGE_SIZE, status: query.status, search: query.search })
        const summaries = rows.map((row) => {
          const { id, name, from, subject, createdAt, updatedAt, status, scheduledAt, total, sent, delivered, unsubscribed } = toV1Campaign(row)
          return { id, name, from, subject, createdAt, updatedAt, status, scheduledAt, total, sent, delivered, unsubscribed }
        })
        return { campaigns: summaries, totalPage: Math.ceil(total / PAGE_SIZE) }
      },
      {
        query: t.Object({
          page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent (30 a page)')),
          status: t.Optional(StatusField),
          search: t.Optional(t.String({ maxLength: 200, description: 'Part of the name or subject' })),
        }),
        response: {
          200: t.Object({
            campaigns: t.Array(t.Pick(V1CampaignSchema, ['id', 'name', 'from', 'subject', 'createdAt', 'updatedAt', 'status', 'scheduledAt', 'total', 'sent', 'delivered', 'unsubscribed'], { title: 'V1CampaignSummary' })),
            totalPage: t.Integer(),
          }),
          ...authErrors,
        },
        detail: { summary: 'List campaigns, newest first', tags },
      },
    )
    .get('/:campaignId', async ({ params, caller }) => toV1Campaign(await campaigns.requireCampaign(deps.db, caller.project.id, params.campaignId)), {
      params: Params,
      response: { 200: V1CampaignSchema, ...errors },
      detail: { summary: 'Get a campaign', tags },
    })
    .post(
      '/:campaignId/schedule',
      async ({ params, body, caller }) => {
        const at = timeOf(body?.scheduledAt, 'scheduledAt')
        await write((trx, now) => sendCampaign(trx, caller.project.id, params.campaignId, { at, atField: 'scheduledAt', batchSize: body?.batchSize }, now))
        return { success: true }
      },
      {
        params: Params,
        body: t.Optional(strictObject({ scheduledAt: t.Optional(t.String({ description: 'ISO 8601; absent or past: now' })), batchSize: t.Optional(BatchSize) })),
        response: { 200: Success, ...errors },
        detail: { summary: 'Schedule a campaign, or send it now', tags },
      },
    )
    .post(
      '/:campaignId/pause',
      async ({ params, caller }) => {
        await write((trx, now) => pauseCampaign(trx, caller.project.id, params.campaignId, now))
        return { success: true }
      },
      { params: Params, response: { 200: Success, ...errors }, detail: { summary: 'Pause a campaign', tags } },
    )
    .post(
      '/:campaignId/resume',
      async ({ params, caller }) => {
        await write((trx, now) => resumeCampaign(trx, caller.project.id, params.campaignId, { maxAgeMs: deps.sendSettings.maxAgeMs, guardrails: guardrailSettingsOf(deps.config) }, now))
        return { success: true }
      },
      { params: Params, response: { 200: Success, ...errors }, detail: { summary: 'Resume a paused campaign', tags } },
    )
    .delete('/:campaignId', async ({ params, caller }) => toV1Campaign(await write((trx) => campaigns.deleteCampaign(trx, caller.project.id, params.campaignId))), {
      params: Params,
      response: { 200: V1CampaignSchema, ...errors },
      detail: { summary: 'Delete a DRAFT campaign', tags },
    })
}
