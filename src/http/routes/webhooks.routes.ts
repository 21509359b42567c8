import { Elysia, t } from 'elysia'
import { ALL_EVENTS, EVENT_TYPES } from '../../core/webhooks/event-types.ts'
import { sendTestEvent } from '../../core/webhooks/test-event.ts'
import * as webhooks from '../../core/webhooks/webhooks.service.ts'
import type { Db } from '../../db/schema.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, intField, intQuery, oneOf, strictObject } from '../schemas.ts'

const EventsField = t.Array(oneOf([...EVENT_TYPES, ALL_EVENTS]), {
  maxItems: 50,
  description: `The event types to receive, at least one; "${ALL_EVENTS}" for every type, those added later included`,
})

const Fields = {
  url: t.String({ description: 'http(s) URL that receives the events as POSTs; private and loopback addresses are refused unless the server allows them' }),
  events: EventsField,
  enabled: t.Optional(t.Boolean({ description: 'true when absent' })),
}

const WebhookSchema = t.Object({
  id: t.String(),
  url: t.String(),
  events: t.Array(t.String()),
  enabled: t.Boolean(),
  disabledReason: t.Union([t.String(), t.Null()], { description: 'Why the server disabled it (too many failed calls in a row)' }),
  consecutiveFailures: t.Integer({ description: 'Failed calls since the last success; at 30 the webhook is disabled' }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Webhook' })

const Time = t.Union([t.String({ format: 'date-time' }), t.Null()])

const DeliverySchema = t.Object({
  id: t.String(),
  eventId: t.String({ description: 'The payload id and x-mailstead-id, the same on every attempt' }),
  type: t.String(),
  state: oneOf(['pending', 'paused', 'delivered', 'failed']),
  attempts: t.Integer(),
  nextAttemptAt: Time,
  lastAttemptAt: Time,
  lastStatus: t.Union([t.Integer(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  lastDurationMs: t.Union([t.Integer(), t.Null()]),
  lastResponseBody: t.Union([t.String(), t.Null()], { description: "The beginning of the endpoint's answer to the last call (2,000 characters at most)" }),
  payload: t.Unknown({ description: 'The body sent: {id, type, createdAt, data}' }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'WebhookDelivery' })

const PageQuery = t.Object({
  page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
  pageSize: t.Optional(intQuery('pageSize', 1, 100, 'Page size, 20 when absent')),
})

const IdParams = t.Object({ id: t.String() })

const Headers = t.Record(t.String(), t.String())
const TestCallSchema = t.Object({
  ok: t.Boolean({ description: 'The endpoint answered 2xx in time' }),
  request: t.Object({
    method: t.String(),
    url: t.String(),
    headers: t.Record(t.String(), t.String(), { description: 'As sent: the signature headers, never the secret' }),
    body: t.String({ description: 'The payload: a real one of the type, with `test: true`' }),
  }),
  response: t.Union([
    t.Object({
      status: t.Integer(),
      headers: Headers,
      body: t.String({ description: 'The first KB of the answer' }),
      truncated: t.Boolean({ description: 'The answer went on past the first KB' }),
    }),
    t.Null(),
  ], { description: 'Null when no answer came (refused target, network error, timeout)' }),
  durationMs: t.Integer(),
  error: t.Union([t.String(), t.Null()], { description: 'Why the call did not succeed' }),
}, { title: 'WebhookTestCall' })
const errors = { ...authErrors, 404: ErrorSchema, 409: ErrorSchema }
const tags = ['Webhooks']

export const webhookRoutes = (deps: HttpDeps) => {
  const write = <T>(work: (trx: Db, at: number) => Promise<T>) => {
    const at = deps.clock.now()
    return deps.writer.run((trx) => work(trx, at))
  }
  // Checked before the write: it may ask DNS, which no transaction waits for.
  const checked = (url: string) => webhooks.checkUrl(url, deps.webhooks.targets)
  return new Elysia({ prefix: '/webhooks' })
    .use(requireKey(deps))
    .get('', ({ query, caller }) => webhooks.listWebhooks(deps.db, caller.project.id, query.page ?? 1, query.pageSize ?? 20), {
      query: PageQuery,
      response: { 200: t.Object({ webhooks: t.Array(WebhookSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...authErrors },
      detail: { summary: "A page of the project's webhooks, newest first", tags },
    })
    .post(
      '',
      async ({ body, caller, set }) => {
        const url = await checked(body.url)
        set.status = 201
        return write((trx, at) => webhooks.createWebhook(trx, caller.project.id, { ...body, url }, deps.config.secret, at))
      },
      {
        body: strictObject(Fields),
        response: { 201: t.Composite([WebhookSchema, t.Object({ secret: t.String({ description: 'Signs its calls. Shown this once: keep it.' }) })]), ...errors },
        detail: { summary: 'Create a webhook; its signing secret is shown this once', tags },
      },
    )
    .get('/:id', ({ params, caller }) => webhooks.getWebhook(deps.db, caller.project.id, params.id), {
      params: IdParams,
      response: { 200: WebhookSchema, ...errors },
      detail: { summary: 'Get a webhook', tags },
    })
    .patch(
      '/:id',
      async ({ params, body, caller }) => {
        if (Object.keys(body).length === 0) throw invalid('body', 'give at least one of url, events, enabled')
        const url = body.url === undefined ? undefined : await checked(body.url)
        return write((trx, at) => webhooks.updateWebhook(trx, caller.project.id, params.id, { ...body, url }, at))
      },
      {
        params: IdParams,
        body: strictObject({ url: t.Optional(Fields.url), events: t.Optional(EventsField), enabled: t.Optional(t.Boolean()) }),
        response: { 200: WebhookSchema, ...errors },
        detail: { summary: 'Change a webhook; enabling it sends what waited while it was disabled', tags },
      },
    )
    .delete('/:id', ({ params, caller }) => write((trx) => webhooks.deleteWebhook(trx, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), ...errors },
      detail: { summary: 'Delete a webhook and its deliveries', tags },
    })
    .post(
      '/:id/rotate-secret',
      ({ params, body, caller }) => write((trx, at) => webhooks.rotateSecret(trx, caller.project.id, params.id, body?.overlapHours ?? 24, deps.config.secret, at)),
      {
        params: IdParams,
        body: t.Optional(
          strictObject({
            overlapHours: t.Optional(intField(0, 168, 'How long the old secret signs too, 24 when absent; 0 ends it now')),
          }),
        ),
        response: { 200: t.Object({ secret: t.String({ description: 'Shown this once' }), previousSecretExpiresAt: Time }), ...errors },
        detail: { summary: 'A new signing secret, shown this once; the old one signs too for a while', tags },
      },
    )
    .post(
      '/:id/test',
      ({ params, body, caller }) => sendTestEvent({ db: deps.db, serverSecret: deps.config.secret, targets: deps.webhooks.targets }, caller.project.id, params.id, body.type, deps.clock.now()),
      {
        params: IdParams,
        body: strictObject({ type: oneOf(EVENT_TYPES, 'The event type to send a sample of') }),
        response: { 200: TestCallSchema, ...errors },
        detail: {
          summary: 'Send a test event: a sample payload of the type, signed like a real call, now; answers the request and the response',
          description: 'Waits for the answer (10 s at most). The call is not a delivery: it is not logged among the deliveries, not retried, and does not count towards disabling the webhook. The payload carries `test: true` and the request the header `x-mailstead-test: true`.',
          tags,
        },
      },
    )
    .get('/:id/deliveries', ({ params, query, caller }) => webhooks.listDeliveries(deps.db, caller.project.id, params.id, query.page ?? 1, query.pageSize ?? 20), {
      params: IdParams,
      query: PageQuery,
      response: { 200: t.Object({ deliveries: t.Array(DeliverySchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...errors },
      detail: { summary: "A page of the webhook's deliveries, newest first", tags },
    })
    .post(
      '/:id/deliveries/:deliveryId/replay',
      ({ params, caller }) => write((trx, at) => webhooks.replayDelivery(trx, caller.project.id, params.id, params.deliveryId, at)),
      {
        params: t.Object({ id: t.String(), deliveryId: t.String() }),
        response: { 200: DeliverySchema, ...errors },
        detail: { summary: 'Call a delivered or failed delivery again: the same payload and event id, with a full round of retries', tags },
      },
    )
}
