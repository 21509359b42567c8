import { Elysia, t } from 'elysia'
import { cancelDelivery, decodeQueueCursor, encodeQueueCursor, listQueue, PENDING_STATES, queueStats, retryDeliveries, toQueued } from '../../core/queue/index.ts'
import { messageLost } from '../../core/campaigns/index.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, intQuery, numericId, oneOf, strictObject } from '../schemas.ts'

const tags = ['Queue']
const StateSchema = oneOf(PENDING_STATES as ['scheduled', 'queued', 'sending', 'deferred', 'paused'], 'A state of the queue')
const DomainField = t.String({ minLength: 1, maxLength: 253, description: 'A destination domain', error: 'must be a domain name', 'x-field': 'domain' })

const QueuedDeliverySchema = t.Object({
  id: t.Integer(),
  emailId: t.String(),
  recipient: t.String(),
  domain: t.String(),
  state: t.String(),
  attempts: t.Integer(),
  nextAttemptAt: t.String({ format: 'date-time' }),
  lastResponse: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
}, { title: 'QueuedDelivery' })

const IdParams = t.Object({ id: numericId('The delivery id') })
const withNotFound = { ...authErrors, 404: ErrorSchema, 409: ErrorSchema }

/** The project's queue: what waits to be sent, by state and destination; a delivery retried or cancelled. */
export const queueRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/queue' })
    .use(requireKey(deps))
    .get('', ({ caller }) => queueStats(deps.db, { projectId: caller.project.id }, true), {
      response: {
        200: t.Object({
          byState: t.Record(t.String(), t.Integer(), { description: 'Deliveries in each pending state (a state with none is absent)' }),
          byDomain: t.Array(t.Object({ domain: t.String(), count: t.Integer() }), { description: 'Pending deliveries by destination domain, most first (50 at most)' }),
        }),
        ...authErrors,
      },
      detail: { summary: "Count the project's pending deliveries by state and by destination domain", tags },
    })
    .get(
      '/deliveries',
      async ({ query, caller }) => {
        const limit = query.limit ?? 50
        const after = query.cursor === undefined ? undefined : decodeQueueCursor(query.cursor)
        const rows = await listQueue(deps.db, { state: query.state, limit: limit + 1, after }, { projectId: caller.project.id, domain: query.domain })
        const page = rows.slice(0, limit)
        const hasMore = rows.length > limit
        return { deliveries: page.map(toQueued), cursor: hasMore ? encodeQueueCursor(page.at(-1)!) : null, hasMore }
      },
      {
        query: t.Object({
          state: t.Optional(StateSchema),
          domain: t.Optional(DomainField),
          limit: t.Optional(intQuery('limit', 1, 100, 'Page size, 50 when absent')),
          cursor: t.Optional(t.String({ description: 'The cursor of the previous page' })),
        }),
        response: { 200: t.Object({ deliveries: t.Array(QueuedDeliverySchema), cursor: t.Union([t.String(), t.Null()]), hasMore: t.Boolean() }), ...authErrors },
        detail: { summary: "List the project's pending deliveries (or those in a state, or to a domain), soonest first, by cursor", tags },
      },
    )
    .post(
      '/deliveries/:id/retry',
      async ({ params, caller }) => ({ retried: await deps.writer.run((trx) => retryDeliveries(trx, params.id, deps.clock.now(), messageLost, { projectId: caller.project.id })) }),
      {
        params: IdParams,
        response: { 200: t.Object({ retried: t.Integer() }), ...withNotFound },
        detail: { summary: 'Try a deferred or failed delivery again now', tags },
      },
    )
    .post(
      '/deliveries/:id/cancel',
      async ({ params, caller }) => {
        await deps.writer.run((trx) => cancelDelivery(trx, params.id, deps.clock.now(), { projectId: caller.project.id }))
        return { cancelled: 1 }
      },
      {
        params: IdParams,
        response: { 200: t.Object({ cancelled: t.Integer() }), ...withNotFound },
        detail: { summary: 'Take a delivery that has not left yet out of the queue (scheduled, queued or deferred)', tags },
      },
    )
    .post(
      '/retry',
      async ({ body, caller }) => ({
        retried: await deps.writer.run((trx) => retryDeliveries(trx, 'all-deferred', deps.clock.now(), messageLost, { projectId: caller.project.id, domain: body?.domain })),
      }),
      {
        body: t.Optional(strictObject({ domain: t.Optional(DomainField) })),
        response: { 200: t.Object({ retried: t.Integer() }), ...authErrors },
        detail: { summary: "Try every deferred delivery of the project (to one domain, if said) again now", tags },
      },
    )
