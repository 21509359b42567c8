import { Elysia, t } from 'elysia'
import { sql } from 'kysely'
import { publicWarnings } from '../../lib/findings.ts'
import type { HttpDeps } from '../deps.ts'

export const healthRoutes = (deps: HttpDeps) =>
  new Elysia().get(
    '/health',
    async ({ set }) => {
      try {
        await sql`SELECT 1`.execute(deps.db)
        const report = await deps.serverChecks.latest()
        return { status: 'ok' as const, listeners: deps.listeners(), warnings: publicWarnings(report?.findings ?? []) }
      } catch (error) {
        deps.logger.error('HEALTH', 'database check failed', { error: String(error) })
        set.status = 503
        return { status: 'error' as const }
      }
    },
    {
      detail: {
        summary: "Health check: answers after touching the database, with the SMTP listeners' state and the server self-checks' warnings",
        tags: ['System'],
      },
      response: {
        200: t.Object({
          status: t.Literal('ok'),
          listeners: t.Record(t.String(), t.Object({ state: t.UnionEnum(['up', 'down', 'off']), port: t.Optional(t.Integer()), error: t.Optional(t.String()) }), {
            description: 'The SMTP listeners: up, down (its port could not be bound) or off',
          }),
          warnings: t.Array(t.String(), {
            description:
              'What the latest reputation self-checks found wrong or could not check (PTR, FCrDNS, host name, blocklists, SPF), one short sentence each; the status stays ok. GET /api/v1/server/checks has the details',
          }),
        }),
        503: t.Object({ status: t.Literal('error') }),
      },
    },
  )
