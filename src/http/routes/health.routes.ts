import { Elysia, t } from 'elysia'
import { sql } from 'kysely'
import { publicWarnings } from '../../lib/findings.ts'
import type { HttpDeps } from '../deps.ts'

/** How long the database has to answer before /health calls it down. */
const DATABASE_TIMEOUT_MS = 2000

/** Whether the database answers a trivial query in time: undefined when it does, else why not. */
async function databaseProblem(deps: HttpDeps): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${DATABASE_TIMEOUT_MS / 1000} s`), DATABASE_TIMEOUT_MS)
  })
  const asked = sql`SELECT 1`.execute(deps.db).then(
    () => undefined,
    (error) => {
      deps.logger.error('HEALTH', 'database check failed', { error: String(error) })
      return 'the database does not answer'
    },
  )
  try {
    return await Promise.race([asked, late])
  } finally {
    clearTimeout(timer)
  }
}

const LISTENERS = t.Record(t.String(), t.Object({ state: t.UnionEnum(['up', 'down', 'off']), port: t.Optional(t.Integer()), error: t.Optional(t.String()) }), {
  description: 'The SMTP listeners: up, down (its port could not be bound) or off',
})

const WARNINGS = t.Array(t.String(), {
  description:
    'What the latest reputation self-checks found wrong or could not check (PTR, FCrDNS, host name, blocklists, SPF), one short sentence each; they leave the status ok. GET /api/v1/server/checks has the details',
})

/**
 * ok (200) when the database answers and every SMTP listener that should run is up; degraded
 * (503) otherwise, with what is wrong, so that a load balancer or Docker stops sending work here.
 * The self-checks' warnings (PTR, blocklists...) need a person, not a restart: they leave it ok.
 */
export const healthRoutes = (deps: HttpDeps) =>
  new Elysia().get(
    '/health',
    async ({ set }) => {
      const listeners = deps.listeners()
      const problems = [
        await databaseProblem(deps),
        ...Object.entries(listeners)
          .filter(([, listener]) => listener.state === 'down')
          .map(([name, listener]) => `the ${name} SMTP listener is down${listener.port === undefined ? '' : ` (port ${listener.port})`}${listener.error ? `: ${listener.error}` : ''}`),
      ].filter((problem): problem is string => problem !== undefined)
      const report = problems.length === 0 ? await deps.serverChecks.latest().catch(() => undefined) : undefined
      if (problems.length > 0) set.status = 503
      return { status: problems.length === 0 ? ('ok' as const) : ('degraded' as const), problems, listeners, warnings: publicWarnings(report?.findings ?? []) }
    },
    {
      detail: {
        summary: 'Health check: ok when the database answers and every SMTP listener that should run is up, else degraded with 503',
        tags: ['System'],
      },
      response: {
        200: t.Object({
          status: t.Literal('ok'),
          problems: t.Array(t.String(), { description: 'Empty when ok' }),
          listeners: LISTENERS,
          warnings: WARNINGS,
        }),
        503: t.Object({
          status: t.Literal('degraded'),
          problems: t.Array(t.String(), { description: 'What is wrong: the database not answering, a listener down, one sentence each' }),
          listeners: LISTENERS,
          warnings: WARNINGS,
        }),
      },
    },
  )
