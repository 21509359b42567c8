import { Elysia, t } from 'elysia'
import { listDomains } from '../../core/domains/index.ts'
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
}, { title: 'ServerFinding' })

const RelayPortSchema = t.Object({
  port: t.Integer(),
  security: t.UnionEnum(['STARTTLS', 'TLS'], { description: 'STARTTLS: plain at first, then upgraded (587); TLS: from the first byte (465)' }),
  state: t.UnionEnum(['up', 'down', 'off'], {
    description: "This process's listener: up, down (its port could not be bound) or off (this process does not run the smtp role; another may)",
  }),
}, { title: 'RelayPort' })

/** How an application reaches the relay: what the console's SMTP relay page shows, from the settings. */
function relaySettings(deps: HttpDeps) {
  const { config } = deps
  const listeners = deps.listeners()
  const ports = [
    // The port bound, when this process listens (it differs from the setting's 0 in tests).
    ...(config.relayPort === null ? [] : [{ port: listeners.relay?.port ?? config.relayPort, security: 'STARTTLS' as const, state: listeners.relay?.state ?? ('off' as const) }]),
    ...(config.relayTlsPort === null ? [] : [{ port: listeners.relayTls?.port ?? config.relayTlsPort, security: 'TLS' as const, state: listeners.relayTls?.state ?? ('off' as const) }]),
  ]
  return {
    host: config.hostname,
    listenAddress: config.smtpHost,
    ports,
    authMethods: ['PLAIN', 'LOGIN'],
    authBeforeTls: config.relayAllowInsecureAuth,
    certificate: config.tlsCert ? ('configured' as const) : ('self-signed' as const),
    maxMessageBytes: config.smtpMaxMessageMb * 1024 * 1024,
    maxRecipients: config.relayMaxRecipients,
  }
}

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
    .get('/api/v1/server/relay', () => relaySettings(deps), {
      response: {
        200: t.Object({
          host: t.String({ description: 'The host name to connect to: MAILSTEAD_HOSTNAME, which the certificate names' }),
          listenAddress: t.String({ description: 'MAILSTEAD_SMTP_HOST: 127.0.0.1 takes connections from this machine only, 0.0.0.0 from anywhere' }),
          ports: t.Array(RelayPortSchema, { description: 'Empty when both relay ports are off' }),
          authMethods: t.Array(t.String(), { description: 'User name: anything; password: a secret API key (sk_...) of the project' }),
          authBeforeTls: t.Boolean({ description: 'Whether AUTH is offered before STARTTLS (MAILSTEAD_RELAY_ALLOW_INSECURE_AUTH); false unless set' }),
          certificate: t.UnionEnum(['configured', 'self-signed'], { description: 'self-signed: no MAILSTEAD_TLS_CERT, so clients must be told to accept the certificate' }),
          maxMessageBytes: t.Integer(),
          maxRecipients: t.Integer({ description: 'Recipients of one message' }),
        }),
        ...authErrors,
      },
      detail: { summary: 'How applications reach the SMTP relay: host, ports, authentication, limits (no secrets)', tags: ['System'] },
    })
