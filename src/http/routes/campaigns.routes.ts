import { Elysia, t } from 'elysia'
import { campaignStatsOf, cancelCampaign, pauseCampaign, resumeCampaign, sendCampaign } from '../../core/campaigns/campaign-actions.ts'
import { guardrailSettingsOf } from '../../core/guardrails/guard.ts'
import { MAX_BATCH_SIZE, type CampaignInput, type CampaignRow } from '../../core/campaigns/campaign.ts'
import * as campaigns from '../../core/campaigns/campaigns.service.ts'
import { prepareCampaignTest } from '../../core/campaigns/campaign-test.ts'
import { enqueueEmail } from '../../core/emails/send.ts'
import type { Db } from '../../db/schema.ts'
import { requireKey } from '../auth.ts'
import { dirQuery, sortQuery } from '../list-schemas.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, EmailField, ErrorSchema, intField, intQuery, oneOf, strictObject } from '../schemas.ts'
import { CampaignSchema, StatsSchema, StatusField } from './campaign-schemas.ts'
import { timeOf } from './send-schemas.ts'
import { ConditionSchema } from './segments.routes.ts'

const Fields = {
  name: t.String(),
  description: t.Optional(t.Union([t.String(), t.Null()])),
  subject: t.String({ description: 'May hold {{placeholders}}' }),
  body: t.String({ description: 'HTML; {{email}}, {{data.firstName ?? "there"}}, {{unsubscribeUrl}}' }),
  from: EmailField,
  fromName: t.Optional(t.Union([t.String(), t.Null()])),
  replyTo: t.Optional(t.Union([t.String(), t.Null()])),
  audienceType: oneOf(['ALL', 'SEGMENT', 'FILTERED']),
  segmentId: t.Optional(t.Union([t.String(), t.Null()])),
  audienceCondition: t.Optional(ConditionSchema),
  previewText: t.Optional(t.Union([t.String(), t.Null()])),
  batchSize: t.Optional(intField(1, MAX_BATCH_SIZE, 'Emails per batch, 500 when absent')),
  batchWindowMinutes: t.Optional(intField(0, 1440, 'Minutes at least between batches, 0 when absent')),
}
const NewCampaign = strictObject(Fields, { title: 'NewCampaign' })
const CampaignChanges = t.Partial(NewCampaign, { title: 'CampaignChanges', additionalProperties: false })

type Body = Partial<typeof NewCampaign.static>

/** The dashboard's names onto the campaign's; what is absent stays absent. */
const inputOf = (body: Body): Partial<CampaignInput> => ({
  name: body.name,
  description: body.description,
  subject: body.subject,
  html: body.body,
  previewText: body.previewText,
  from: body.from === undefined ? undefined : { address: body.from, ...(body.fromName && { name: body.fromName }) },
  replyTo: body.replyTo === undefined ? undefined : body.replyTo === null ? [] : [body.replyTo],
  audienceType: body.audienceType,
  segmentId: body.segmentId,
  audienceCondition: body.audienceCondition,
  batchSize: body.batchSize,
  batchWindowMinutes: body.batchWindowMinutes,
})

const IdParams = t.Object({ id: t.String() })
const Wrapped = t.Object({ success: t.Literal(true), data: CampaignSchema, message: t.Optional(t.String()) }, { title: 'WrappedCampaign' })
const errors = { ...authErrors, 404: ErrorSchema, 409: ErrorSchema }
const tags = ['Campaigns']

export const campaignRoutes = (deps: HttpDeps) => {
  const now = () => deps.clock.now()
  const write = <T>(work: (trx: Db, at: number) => Promise<T>) => {
    const at = now()
    return deps.writer.run((trx) => work(trx, at))
  }
  /** The wrapped dashboard form of what an action returned. */
  const wrapped = async (row: CampaignRow, message?: string) => ({
    success: true as const,
    data: await campaigns.dashboardCampaign(deps.db, row, now()),
    ...(message && { message }),
  })
  return new Elysia({ prefix: '/campaigns' })
    .use(requireKey(deps))
    .post(
      '',
      async ({ body, caller, set }) => {
        const row = await write((trx, at) => campaigns.createCampaign(trx, caller.project.id, inputOf(body) as CampaignInput, at))
        set.status = 201
        return wrapped(row)
      },
      { body: NewCampaign, response: { 201: Wrapped, ...errors }, detail: { summary: 'Create a DRAFT campaign', tags } },
    )
    .get(
      '',
      async ({ query, caller }) => {
        const page = query.page ?? 1
        const pageSize = query.pageSize ?? 20
        const { rows, total } = await campaigns.listCampaigns(deps.db, caller.project.id, { ...query, page, pageSize })
        const data = await Promise.all(rows.map((row) => campaigns.dashboardCampaign(deps.db, row, now())))
        return { data, total, page, pageSize, totalPages: Math.ceil(total / pageSize) }
      },
      {
        query: t.Object({
          page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
          pageSize: t.Optional(intQuery('pageSize', 1, 100, 'Page size, 20 when absent')),
          status: t.Optional(StatusField),
          search: t.Optional(t.String({ maxLength: 200, description: 'Part of the name or subject' })),
          sort: sortQuery(Object.keys(campaigns.CAMPAIGN_SORTS) as [campaigns.CampaignSort, ...campaigns.CampaignSort[]]),
          dir: dirQuery,
        }),
        response: { 200: t.Object({ data: t.Array(CampaignSchema), total: t.Integer(), page: t.Integer(), pageSize: t.Integer(), totalPages: t.Integer() }), ...authErrors },
        detail: { summary: 'List campaigns, newest first unless sorted', tags },
      },
    )
    .get('/:id', async ({ params, caller }) => wrapped(await campaigns.requireCampaign(deps.db, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: Wrapped, ...errors },
      detail: { summary: 'Get a campaign with its segment', tags },
    })
    .put('/:id', async ({ params, body, caller }) => wrapped(await write((trx, at) => campaigns.updateCampaign(trx, caller.project.id, params.id, inputOf(body), at))), {
      params: IdParams,
      body: CampaignChanges,
      response: { 200: Wrapped, ...errors },
      detail: { summary: 'Change a DRAFT or SCHEDULED campaign (the fields given)', tags },
    })
    .patch('/:id', async ({ params, body, caller }) => wrapped(await write((trx, at) => campaigns.updateCampaign(trx, caller.project.id, params.id, inputOf(body), at))), {
      params: IdParams,
      body: CampaignChanges,
      response: { 200: Wrapped, ...errors },
      detail: { summary: 'Change a DRAFT or SCHEDULED campaign (the fields given)', tags },
    })
    .delete(
      '/:id',
      async ({ params, caller }) => {
        await write((trx) => campaigns.deleteCampaign(trx, caller.project.id, params.id))
        return { success: true as const, message: 'Campaign deleted' }
      },
      { params: IdParams, response: { 200: t.Object({ success: t.Literal(true), message: t.String() }), ...errors }, detail: { summary: 'Delete a DRAFT campaign', tags } },
    )
    .post(
      '/:id/send',
      async ({ params, body, caller }) => {
        const at = timeOf(body?.scheduledFor, 'scheduledFor')
        const row = await write((trx, now) => sendCampaign(trx, caller.project.id, params.id, { at, atField: 'scheduledFor' }, now))
        return wrapped(row, row.status === 'SCHEDULED' ? `Campaign scheduled for ${row.scheduled_at && new Date(row.scheduled_at).toISOString()}` : 'Campaign is being sent')
      },
      {
        params: IdParams,
        body: t.Optional(strictObject({ scheduledFor: t.Optional(t.String({ description: 'ISO 8601; absent or past: now' })) })),
        response: { 200: Wrapped, ...errors },
        detail: { summary: 'Send a campaign now, or schedule it', tags },
      },
    )
    .post('/:id/pause', async ({ params, caller }) => wrapped(await write((trx, at) => pauseCampaign(trx, caller.project.id, params.id, at)), 'Campaign paused'), {
      params: IdParams,
      response: { 200: Wrapped, ...errors },
      detail: { summary: 'Pause: no more batches, and what is queued but untried waits', tags },
    })
    .post(
      '/:id/resume',
      async ({ params, caller }) => {
        const row = await write((trx, at) => resumeCampaign(trx, caller.project.id, params.id, { maxAgeMs: deps.sendSettings.maxAgeMs, guardrails: guardrailSettingsOf(deps.config) }, at))
        return wrapped(row, 'Campaign resumed')
      },
      { params: IdParams, response: { 200: Wrapped, ...errors }, detail: { summary: 'Resume a paused campaign where it stopped', tags } },
    )
    .post('/:id/cancel', async ({ params, caller }) => wrapped(await write((trx, at) => cancelCampaign(trx, caller.project.id, params.id, at)), 'Campaign cancelled'), {
      params: IdParams,
      response: { 200: Wrapped, ...errors },
      detail: { summary: 'Cancel: nothing more is sent', tags },
    })
    .post(
      '/:id/test',
      async ({ params, body, caller }) => {
        const at = now()
        const email = await prepareCampaignTest(deps.db, caller.project.id, params.id, body.email, deps.links, at, deps.build)
        await deps.writer.run((trx) => enqueueEmail(trx, email, deps.sendSettings, at))
        return { success: true as const, message: `Test email sent to ${body.email}`, data: { emailId: email.id } }
      },
      {
        params: IdParams,
        body: strictObject({ email: EmailField }),
        response: { 200: t.Object({ success: t.Literal(true), message: t.String(), data: t.Object({ emailId: t.String() }) }), ...errors },
        detail: { summary: 'Send one copy, marked [TEST], to an address', tags },
      },
    )
    .get('/:id/stats', async ({ params, caller }) => {
      const stats = await campaignStatsOf(deps.db, caller.project.id, params.id)
      return { success: true as const, data: { ...stats, expectedFinishAt: await deps.warmupFinish(params.id) } }
    }, {
      params: IdParams,
      response: { 200: t.Object({ success: t.Literal(true), data: StatsSchema }), ...errors },
      detail: { summary: "A campaign's numbers and rates", tags },
    })
}
