import { Elysia, t } from 'elysia'
import { sql } from 'kysely'
import type { HttpDeps } from '../deps.ts'

export const healthRoutes = (deps: HttpDeps) =>
  new Elysia().get(
    '/health',
    async ({ set }) => {
      try {
        await sql`SELECT 1`.execute(deps.db)
        return { status: 'ok' as const }
      } catch (error) {
        deps.logger.error('HEALTH', 'database check failed', { error: String(error) })
        set.status = 503
        return { status: 'error' as const }
      }
    },
    {
      detail: { summary: 'Health check: answers after touching the database', tags: ['System'] },
      response: { 200: t.Object({ status: t.Literal('ok') }), 503: t.Object({ status: t.Literal('error') }) },
    },
  )
