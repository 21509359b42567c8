import { Elysia, t } from 'elysia'
import { dayRange, dmarcSummary } from '../../core/dmarc/summary.ts'
import { toDomain } from '../../core/domains/domain.ts'
import * as domains from '../../core/domains/domains.service.ts'
import { listDomains } from '../../core/domains/index.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, numericId, strictObject } from '../schemas.ts'
import { DmarcCounts as Counts, DmarcDateQuery as DateQuery } from './dmarc-schemas.ts'

const DnsRecordSchema = t.Object({
  type: t.UnionEnum(['TXT', 'MX']),
  name: t.String(),
  value: t.String(),
  ttl: t.String(),
  status: t.String(),
  priority: t.String(),
  recommended: t.Boolean(),
  found: t.Union([t.String(), t.Null()], { description: 'What the last check found at the name (null: nothing, or not checked yet)' }),
  problem: t.Union([t.String(), t.Null()], { description: 'Why the last check judged it so, when it is not right' }),
  unpublishable: t.Union([t.String(), t.Null()], {
    description:
      'Set when the record cannot be published yet, saying why: it would name this server\'s host name, which is not a public DNS name ' +
      '(MAILSTEAD_HOSTNAME / --hostname is to be set first). `value` still holds what it would be. Null when it can be published.',
  }),
}, { title: 'DnsRecord' })

const Nullable = <T extends ReturnType<typeof t.String>>(schema: T) => t.Union([schema, t.Null()])

const DomainSchema = t.Object({
  id: t.Integer(),
  name: t.String(),
  teamId: t.Integer(),
  status: t.UnionEnum(['NOT_STARTED', 'PENDING', 'SUCCESS', 'FAILED', 'TEMPORARY_FAILURE']),
  publicKey: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
  dnsRecords: t.Array(DnsRecordSchema),
  region: t.String(),
  clickTracking: t.Boolean({ description: 'Click tracking of marketing mail (campaigns, workflows, MARKETING templates)' }),
  openTracking: t.Boolean({ description: 'Open tracking of marketing mail' }),
  transactionalClickTracking: t.Boolean({ description: 'Click tracking of transactional mail; off unless turned on' }),
  transactionalOpenTracking: t.Boolean({ description: 'Open tracking of transactional mail; off unless turned on' }),
  dkimStatus: Nullable(t.String()),
  spfDetails: Nullable(t.String()),
  dmarcAdded: t.Boolean(),
  isVerifying: t.Boolean(),
  errorMessage: Nullable(t.String()),
  subdomain: Nullable(t.String()),
  verificationError: Nullable(t.String()),
  lastCheckedTime: Nullable(t.String()),
  hostnameWarning: t.Union([t.String(), t.Null()], {
    description: "Set when some records cannot be published yet (see each record's `unpublishable`): which setting to set, MAILSTEAD_HOSTNAME or --hostname",
  }),
}, { title: 'Domain' })


const DmarcSummarySchema = t.Object({
  domain: t.Object({ id: t.Integer(), name: t.String() }),
  from: t.String({ format: 'date' }),
  to: t.String({ format: 'date' }),
  serverIps: t.Array(t.String(), { description: "The addresses judged to be this server's (MAILSTEAD_PUBLIC_IPS, else its interfaces')" }),
  warning: Nullable(t.String()),
  reports: t.Object({ count: t.Integer(), reporters: t.Array(t.Object({ orgName: t.String(), reports: t.Integer(), messages: t.Integer() })) }),
  totals: t.Object({ ...Counts, dmarcFail: t.Integer(), fromThisServer: t.Integer(), fromElsewhere: t.Integer() }),
  days: t.Array(t.Object({ date: t.String({ format: 'date' }), ...Counts })),
  sources: t.Array(
    t.Object({
      ip: t.String(),
      thisServer: t.Boolean(),
      ...Counts,
      firstDay: t.String({ format: 'date' }),
      lastDay: t.String({ format: 'date' }),
      flag: Nullable(t.String({ description: 'Set for a source that sends as the domain but is not this server: why it deserves a look' })),
    }),
  ),
  sourceCount: t.Integer({ description: 'Sources in the range; `sources` lists the 1,000 with the most messages' }),
  flagged: t.Integer({ description: 'Sources that send as the domain but are not this server' }),
}, { title: 'DmarcSummary' })


const IdParams = t.Object({ id: numericId('Domain id') })
const tags = ['Domains']

export const domainRoutes = (deps: HttpDeps) => {
  const { hostname } = deps.domainSettings
  return new Elysia()
    .use(requireKey(deps))
    .post(
      '/api/v1/domains',
      async ({ body, caller }) => {
        const draft = await domains.draftDomain(body, deps.domainSettings)
        const now = deps.clock.now()
        const row = await deps.writer.run((trx) => domains.addDomain(trx, caller.project.id, draft, deps.domainSettings, now))
        return toDomain(row, hostname)
      },
      {
        body: strictObject({
          name: t.String({ description: 'A domain or subdomain you control, e.g. mail.example.com' }),
          region: t.String({ description: 'Sending pool label: us-east-1, or one the operator configured' }),
        }),
        response: { 200: DomainSchema, ...authErrors, 409: ErrorSchema },
        detail: { summary: 'Add a sending domain: makes its DKIM keys and lists the records to publish', tags },
      },
    )
    .get('/api/v1/domains', async ({ caller }) => (await listDomains(deps.db, caller.project.id)).map((row) => toDomain(row, hostname)), {
      response: { 200: t.Array(DomainSchema), ...authErrors },
      detail: { summary: "List the project's sending domains", tags },
    })
    .get('/api/v1/domains/:id', async ({ params, caller }) => toDomain(await domains.getDomain(deps.db, caller.project.id, params.id), hostname), {
      params: IdParams,
      response: { 200: DomainSchema, ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Get a sending domain with its records and their status', tags },
    })
    .get(
      '/api/v1/domains/:id/dmarc',
      ({ params, query, caller }) => {
        const range = dayRange(query, deps.clock.now())
        return dmarcSummary(deps.db, caller.project.id, params.id, range, deps.serverIps())
      },
      {
        params: IdParams,
        query: t.Object({
          from: DateQuery('from', 'First day (UTC), YYYY-MM-DD; 29 days before `to` when absent'),
          to: DateQuery('to', 'Last day (UTC), YYYY-MM-DD, included; today when absent'),
        }),
        response: { 200: DmarcSummarySchema, ...authErrors, 404: ErrorSchema },
        detail: {
          summary:
            "What DMARC aggregate reports say of the domain's mail: totals, per day and per source IP; " +
            'flags the sources that send as the domain but are not this server',
          tags,
        },
      },
    )
    .put(
      '/api/v1/domains/:id/verify',
      async ({ params, caller }) => {
        const domain = await domains.getDomain(deps.db, caller.project.id, params.id)
        if (domain.is_verifying === 1) return { message: 'Verification is already running' }
        deps.checker.check(domain.id).catch((error) => deps.logger.error('DOMAIN', 'check failed', { error: String(error) }))
        return { message: 'Verification started' }
      },
      {
        params: IdParams,
        response: { 200: t.Object({ message: t.String() }), ...authErrors, 404: ErrorSchema },
        detail: { summary: "Check the domain's DNS records now", tags },
      },
    )
    .delete('/api/v1/domains/:id', ({ params, caller }) => deps.writer.run((trx) => domains.removeDomain(trx, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: t.Object({ id: t.Integer(), success: t.Boolean(), message: t.String() }), ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Remove a sending domain', tags },
    })
    .patch(
      '/domains/:id',
      async ({ params, body, caller }) => {
        const now = deps.clock.now()
        const row = await deps.writer.run((trx) => domains.setTracking(trx, caller.project.id, params.id, body, now))
        return toDomain(row, hostname)
      },
      {
        params: IdParams,
        body: strictObject({
          openTracking: t.Optional(t.Boolean()),
          clickTracking: t.Optional(t.Boolean()),
          transactionalOpenTracking: t.Optional(t.Boolean()),
          transactionalClickTracking: t.Optional(t.Boolean()),
        }),
        response: { 200: DomainSchema, ...authErrors, 404: ErrorSchema },
        detail: { summary: 'Turn open and click tracking on or off for a domain, for its marketing and its transactional mail', tags },
      },
    )
}
