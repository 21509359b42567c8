import { Elysia, t } from 'elysia'
import { dmarcOverview } from '../../core/dmarc/overview.ts'
import { dayRange } from '../../core/dmarc/summary.ts'
import { projectReports } from '../../core/inbound/project-reports.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, intQuery, oneOf } from '../schemas.ts'
import { DmarcCounts, DmarcDateQuery } from './dmarc-schemas.ts'

const tags = ['Reports']
const OUTCOMES = ['applied', 'duplicate', 'ignored', 'untrusted'] as const
/** The kinds of report that can name a project's delivery ('other' never does). */
const KINDS = ['dsn', 'arf', 'plain-bounce'] as const

const Paging = {
  page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
  pageSize: t.Optional(intQuery('pageSize', 1, 100, 'Page size, 20 when absent')),
}

const DomainDmarcSchema = t.Object({
  domain: t.Object({ id: t.Integer(), name: t.String() }),
  reports: t.Integer({ description: 'Aggregate reports received about the domain in the range' }),
  totals: t.Object({ ...DmarcCounts, dmarcFail: t.Integer(), fromThisServer: t.Integer(), fromElsewhere: t.Integer() }),
  sources: t.Object({
    total: t.Integer({ description: 'Source addresses seen in the range' }),
    passing: t.Integer({ description: 'Sources all of whose messages passed DMARC' }),
    failing: t.Integer({ description: 'Sources some of whose messages failed DMARC' }),
    notThisServer: t.Integer({ description: 'Sources that are not this server: another service sending for the domain, or someone spoofing it' }),
  }, { description: 'Passing and failing are counted among the 1,000 sources with the most messages' }),
}, { title: 'DomainDmarc' })

const ReceivedReportSchema = t.Object({
  id: t.Integer(),
  receivedAt: t.String({ format: 'date-time' }),
  kind: t.String({ description: 'dsn (a bounce), arf (a complaint), plain-bounce or other' }),
  remoteAddress: t.Union([t.String(), t.Null()], { description: 'The address of the server that sent it' }),
  mailFrom: t.String({ description: "The envelope sender; '' for the null sender" }),
  subject: t.Union([t.String(), t.Null()]),
  messageId: t.Union([t.String(), t.Null()]),
  outcome: oneOf(OUTCOMES),
  reason: t.Union([t.String(), t.Null()], { description: 'Why it changed nothing, when it did not' }),
  actions: t.Array(t.Object({
    emailId: t.String(),
    recipient: t.String(),
    effect: t.Union([t.String(), t.Null()], { description: 'What the report said: hard-bounce, bounce, delay or complaint' }),
    said: t.Union([t.String(), t.Null()], {
      description: "The report's own words about the recipient: a bounce's status and diagnostic, a complaint's feedback type; null for reports kept before it was recorded",
    }),
    result: oneOf(OUTCOMES),
    action: oneOf(['suppressed', 'recorded', 'none'], 'suppressed: the address was suppressed and its contact unsubscribed; recorded: the event was recorded on the email; none: nothing changed'),
    description: t.String({ description: 'What was done, or why nothing was, in a sentence' }),
  }), { description: "What was done about each of this project's deliveries it named" }),
}, { title: 'ReceivedReport' })

/** The reports the server received about the project's mail: DMARC aggregates per domain, bounces and complaints. */
export const reportRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/reports' })
    .use(requireKey(deps))
    .get(
      '/dmarc',
      ({ query, caller }) =>
        dmarcOverview(deps.db, caller.project.id, dayRange(query, deps.clock.now()), deps.serverIps(), { page: query.page ?? 1, pageSize: query.pageSize ?? 20 }),
      {
        query: t.Object({
          from: DmarcDateQuery('from', 'First day (UTC), YYYY-MM-DD; 29 days before `to` when absent'),
          to: DmarcDateQuery('to', 'Last day (UTC), YYYY-MM-DD, included; today when absent'),
          ...Paging,
        }),
        response: {
          200: t.Object({ from: t.String({ format: 'date' }), to: t.String({ format: 'date' }), domains: t.Array(DomainDmarcSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }),
          ...authErrors,
        },
        detail: {
          summary: "What DMARC aggregate reports say of each of the project's domains: messages that pass and fail, and sources that are not this server",
          description: 'A page of the domains, in the order GET /api/v1/domains lists them. GET /api/v1/domains/{id}/dmarc has one domain by day and by source.',
          tags,
        },
      },
    )
    .get('/received', ({ query, caller }) => projectReports(deps.db, caller.project.id, { page: query.page ?? 1, pageSize: query.pageSize ?? 20, outcome: query.outcome, kind: query.kind }), {
      query: t.Object({
        outcome: t.Optional(oneOf(OUTCOMES, 'Only reports of this outcome')),
        kind: t.Optional(oneOf(KINDS, 'Only reports of this kind: dsn (a bounce), arf (a complaint) or plain-bounce')),
        ...Paging,
      }),
      response: { 200: t.Object({ reports: t.Array(ReceivedReportSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...authErrors },
      detail: {
        summary: "The bounce and complaint reports received about the project's mail, newest first, with what was done about each",
        description: 'Only reports that named a delivery of this project; what they said of other projects is left out.',
        tags,
      },
    })
