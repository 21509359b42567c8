import { Elysia, t } from 'elysia'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors } from '../schemas.ts'

const Limits = t.Object({
  connections: t.Integer({ description: 'Attempts (connections) in flight at once' }),
  messagesPerConnection: t.Integer(),
  messagesPerMinute: t.Union([t.Integer(), t.Null()], { description: 'null: no cap' }),
})

const SiteSchema = t.Object({
  name: t.String({ description: "The site rule's name (gmail, microsoft, ...), or the site's MX hosts" }),
  provider: t.Union([t.String(), t.Null()]),
  label: t.Union([t.String(), t.Null()]),
  mxHosts: t.Array(t.String()),
  queued: t.Integer({ description: "This project's deliveries waiting for the site" }),
  limits: Limits,
  baseLimits: Limits,
  ratePerMinute: t.Integer({ description: 'Attempts started in the last minute, all projects' }),
  throttle: t.Union([t.Object({ level: t.Integer(), until: t.Union([t.String(), t.Null()]), reason: t.Union([t.String(), t.Null()]) }), t.Null()]),
  suspension: t.Union([t.Object({ until: t.String(), reason: t.Union([t.String(), t.Null()]) }), t.Null()]),
  warmup: t.Union([t.Object({ day: t.Integer(), days: t.Integer(), cap: t.Integer(), sentToday: t.Integer() }), t.Null()]),
  holding: t.Union([t.String(), t.Null()], { description: 'Why its mail waits now, if it does' }),
}, { title: 'Site' })

export const siteRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/sites' }).use(requireKey(deps)).get('', async ({ caller }) => ({ data: await deps.sites(caller.project.id) }), {
    response: { 200: t.Object({ data: t.Array(SiteSchema) }), ...authErrors },
    detail: {
      summary: 'Destination sites: their limits, rate, throttles, suspensions and warm-up, with this project\'s queue for each',
      tags: ['Sending'],
    },
  })
