import { Elysia, t } from 'elysia'
import { listDomains } from '../../core/domains/domains.repository.ts'
import { isoTime } from '../../lib/clock.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors } from '../schemas.ts'

const FindingSchema = t.Object({
  check: t.String({ description: 'public-ips, ptr, ptr-hostname, hostname, blocklist or spf' }),
  subject: t.String({ description: 'What it was checked for: an IP address, "zone IP" for a blocklist, "domain IP" for SPF' }),
  status: t.UnionEnum(['ok', 'warning', 'failed', 'unchecked', 'skipped'], {
    description: 'unchecked: the check could not be made (a DNS server refused, failed or did not answer); never a pass or a failure',
  }),
  message: t.String({ description: 'What was found, in one sentence' }),
  fix: t.Optional(t.String({ description: 'How to put it right' })),
})

/**
 * Server-wide data, no secrets: any secret key may read it. The SPF findings are per sending
 * domain: a project sees those of its own domains only.
 */
export const serverRoutes = (deps: HttpDeps) =>
  new Elysia().use(requireKey(deps)).get(
    '/api/v1/server/checks',
    async ({ caller }) => {
      const report = await deps.serverChecks.latest()
      const own = new Set((await listDomains(deps.db, caller.project.id)).map((domain) => domain.name))
      return {
        checkedAt: report ? isoTime(report.checkedAt) : null,
        hostname: report?.hostname ?? deps.config.hostname,
        ips: report?.ips ?? [],
        findings: (report?.findings ?? []).filter((f) => f.check !== 'spf' || own.has(f.subject.split(' ')[0]!)),
      }
    },
    {
      response: {
        200: t.Object({
          checkedAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'When the checks ran; null before their first run' }),
          hostname: t.String({ description: 'MAILSTEAD_HOSTNAME, the name given in EHLO' }),
          ips: t.Array(t.String(), { description: 'The public addresses checked' }),
          findings: t.Array(FindingSchema),
        }),
        ...authErrors,
      },
      detail: {
        summary: "The server's reputation self-checks (PTR, FCrDNS, host name, blocklists, SPF), as the DNS checker last ran them (hourly)",
        tags: ['System'],
      },
    },
  )
