import { Elysia, t } from 'elysia'
import * as analytics from '../../core/analytics/analytics.service.ts'
import { MAX_BUCKETS } from '../../core/analytics/range.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, decimalParam, ErrorSchema, oneOf } from '../schemas.ts'
import { timeOf } from './send-schemas.ts'

const Counts = {
  sent: t.Integer({ description: 'First attempts that reached a server (SENT)' }),
  delivered: t.Integer(),
  deferred: t.Integer({ description: 'Attempts deferred and delays reported (DELIVERY_DELAYED), each time' }),
  opened: t.Integer({ description: 'Opens, each time' }),
  clicked: t.Integer({ description: 'Clicks, each time' }),
  bounced: t.Integer({ description: 'Recipients bounced, at an attempt or reported afterwards, each once' }),
  complained: t.Integer({ description: 'Recipients who complained, each once per email' }),
}

const Span = {
  startDate: t.String({ format: 'date-time', description: 'When the first bucket starts' }),
  endDate: t.String({ format: 'date-time', description: 'When the last bucket ends (not included)' }),
}

const days = (description: string) => t.Optional(decimalParam('days', 1, MAX_BUCKETS.day, description))
const domainId = t.Optional(decimalParam('domainId', 1, Number.MAX_SAFE_INTEGER, 'Only the mail of this sending domain of the project; all of them when absent'))
const tags = ['Analytics']

/** useSend's analytics, read from the hourly sending counters. */
export const analyticsRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/analytics' })
    .use(requireKey(deps))
    .get(
      '/email-time-series',
      ({ query, caller }) =>
        analytics.emailTimeSeries(
          deps.db,
          caller.project.id,
          { ...query, startDate: timeOf(query.startDate, 'startDate'), endDate: timeOf(query.endDate, 'endDate') },
          deps.clock.now(),
        ),
      {
        query: t.Object({
          days: days('The last days, today included, UTC (useSend sends 7 or 30); not with startDate or endDate'),
          bucket: t.Optional(oneOf(['hour', 'day'], 'Bucket length, UTC; day when absent')),
          startDate: t.Optional(t.String({ description: 'ISO 8601 date-time: from the bucket holding it' })),
          endDate: t.Optional(t.String({ description: 'ISO 8601 date-time: to the bucket holding it, included; now when absent' })),
          domainId,
        }),
        response: {
          200: t.Object({
            bucket: t.UnionEnum(['hour', 'day']),
            ...Span,
            result: t.Array(t.Object({ date: t.String({ description: 'The bucket: its date (YYYY-MM-DD), or when its hour starts' }), ...Counts })),
            totalCounts: t.Object(Counts),
          }, { title: 'EmailTimeSeries' }),
          ...authErrors,
          404: ErrorSchema,
        },
        detail: {
          summary: "The project's mail by hour or day over a range",
          description:
            'Every bucket of the range, oldest first, those without mail as zeros. Without `days`, `startDate` or `endDate`: the last 30 days (`bucket=day`) or 24 hours (`bucket=hour`). At most 31 days by the hour and 366 by the day.',
          tags,
        },
      },
    )
    .get('/reputation-metrics', ({ query, caller }) => analytics.reputationMetrics(deps.db, caller.project.id, query, deps.clock.now()), {
      query: t.Object({ days: days('The last days, today included, UTC; 30 when absent'), domainId }),
      response: {
        200: t.Object({
          delivered: t.Integer(),
          hardBounced: t.Integer({ description: 'Hard bounces, at an attempt or reported afterwards' }),
          complained: t.Integer(),
          bounceRate: t.Number({ description: 'Hard bounces in per cent of sent, as the sending guardrails judge it' }),
          complaintRate: t.Number({ description: 'Complaints in per cent of delivered' }),
          sent: t.Integer({ description: 'Delivered, plus bounced at an attempt' }),
          ...Span,
        }),
        ...authErrors,
        404: ErrorSchema,
      },
      detail: { summary: "The project's hard-bounce and complaint rates over the last days", tags },
    })
