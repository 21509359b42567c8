import { Elysia, t } from 'elysia'
import * as domains from '../../core/domains/domains.service.ts'
import { guardrailSettingsOf, guardrailVerdict } from '../../core/guardrails/guard.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, numericId } from '../schemas.ts'

const Breach = t.UnionEnum(['complaint_rate', 'hard_bounce_rate'])

const DomainStatsSchema = t.Object({
  domainId: t.Integer(),
  name: t.String(),
  windowHours: t.Integer({ description: 'The window: this hour and the ones before it' }),
  sent: t.Integer({ description: 'Delivered, plus bounced at an attempt' }),
  delivered: t.Integer(),
  bounced: t.Integer({ description: 'Bounced at an attempt, hard or soft' }),
  hardBounced: t.Integer({ description: 'Hard bounces, at an attempt or reported afterwards' }),
  complained: t.Integer(),
  complaintRate: t.Number({ description: 'Complaints in per cent of delivered' }),
  hardBounceRate: t.Number({ description: 'Hard bounces in per cent of sent' }),
  limits: t.Object({ complaintRate: t.Number(), hardBounceRate: t.Number(), minDeliveries: t.Integer() }),
  judged: t.Boolean({ description: 'Enough was sent in the window (minDeliveries) for the rates to be judged' }),
  over: t.Array(Breach, { description: 'The limits passed: campaigns from the domain pause while any is' }),
  message: t.Union([t.String(), t.Null()]),
}, { title: 'DomainStats' })

/** The sending guardrails' view of a domain: its counts and rates over the window, and the limits. */
export const domainStatsRoutes = (deps: HttpDeps) => {
  const settings = guardrailSettingsOf(deps.config)
  return new Elysia().use(requireKey(deps)).get(
    '/api/v1/domains/:id/stats',
    async ({ params, caller }) => {
      const domain = await domains.getDomain(deps.db, caller.project.id, params.id)
      const verdict = await guardrailVerdict(deps.db, caller.project.id, domain, settings, deps.clock.now())
      const { rates } = verdict
      return {
        domainId: domain.id,
        name: domain.name,
        windowHours: rates.windowHours,
        sent: rates.sent,
        delivered: rates.delivered,
        bounced: rates.bounced,
        hardBounced: rates.hardBounced,
        complained: rates.complained,
        complaintRate: rates.complaintRate,
        hardBounceRate: rates.hardBounceRate,
        limits: { complaintRate: settings.complaintPercent, hardBounceRate: settings.hardBouncePercent, minDeliveries: settings.minDeliveries },
        judged: verdict.judged,
        over: verdict.breaches,
        message: verdict.message,
      }
    },
    {
      params: t.Object({ id: numericId('Domain id') }),
      response: { 200: DomainStatsSchema, ...authErrors, 404: ErrorSchema },
      detail: { summary: "The domain's complaint and hard-bounce rates over the guardrails' window, and their limits", tags: ['Domains'] },
    },
  )
}
