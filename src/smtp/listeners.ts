import type { SMTPServer } from 'smtp-server'
import type { Config } from '../config/schema.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'
import type { ReportDeps } from './handle-report.ts'
import { connectionLimit, drainListener, listen, type ListenerStatus } from './listener.ts'
import { createByteBudget, type ByteBudget } from './message-budget.ts'
import { createMxListener } from './mx-listener.ts'
import { createRelay, type RelayDeps } from './relay.ts'
import { sessionLimits } from './session-limits.ts'
import { sessionMetrics, type ObserveSessions } from './session-metrics.ts'
import { loadTls, watchTls } from './tls.ts'

export type ListenerName = 'mx' | 'relay' | 'relayTls'

/**
 * Starts the SMTP listeners the configuration asks for. Each stands alone: one that cannot start
 * is reported down, and the others (and the HTTP API) keep running.
 */
export async function startSmtpListeners(config: Config, reports: ReportDeps, relay: RelayDeps, logger: Logger, metrics: Registry) {
  const tls = await loadTls(config)
  const observe = sessionMetrics(metrics)
  const servers = new Map<ListenerName, SMTPServer>()
  const status: Record<ListenerName, ListenerStatus> = { mx: { state: 'off' }, relay: { state: 'off' }, relayTls: { state: 'off' } }
  const maxMessageBytes = config.smtpMaxMessageMb * 1024 * 1024
  const relaySettings = {
    hostname: config.hostname,
    allowInsecureAuth: config.relayAllowInsecureAuth,
    maxRecipients: config.relayMaxRecipients,
    maxMessageBytes,
    dropOriginHeaders: config.relayDropOriginHeaders,
    bounceNotices: config.relayBounceNotices,
  }
  // The relay's two ports are one door for the same clients: one count of connections per address
  // (failed logins are counted by the authenticator, for HTTP and both ports alike).
  const relayGuards = { connections: connectionLimit(config.smtpMaxConnectionsPerIp) }
  const limitSettings = {
    maxConnections: config.smtpMaxConnections,
    commandTimeoutMs: config.smtpCommandTimeoutSeconds * 1000,
    dataTimeoutMs: config.smtpDataTimeoutSeconds * 1000,
    anonymousMs: config.smtpAnonymousTimeoutSeconds * 1000,
    maxCommandsWithoutMessage: config.smtpMaxCommandsWithoutMessage,
  }
  const stopLimits: Array<() => void> = []
  /**
   * Every listener is counted and held to the same session caps and deadlines, with a budget of
   * message bytes of its own, room for one largest message it keeps at least.
   */
  const start = async (name: ListenerName, keepBytes: number, make: (observe: ObserveSessions, budget: ByteBudget) => SMTPServer, label: string, setting: string, port: number) => {
    const budget = createByteBudget(Math.max(config.smtpMaxInFlightMb * 1024 * 1024, keepBytes))
    const limits = sessionLimits(limitSettings, budget, logger)
    // Behind a load balancer that speaks the PROXY protocol, the client is the one its header names.
    const proxied = config.smtpProxyFrom.length > 0 ? { useProxy: [...config.smtpProxyFrom] } : {}
    const server = make((options) => ({ ...limits.options(observe(name)(options)), ...proxied }), budget)
    stopLimits.push(limits.watch(server))
    servers.set(name, server)
    status[name] = await listen(server, label, setting, config.smtpHost, port, logger)
  }
  if (config.mxPort !== null) {
    const keepBytes = config.mxKeepKb * 1024
    const mxSettings = { hostname: config.hostname, fblAddress: config.fblAddress, fblSenders: config.fblSenders, maxMessageBytes, keepBytes }
    const guards = (budget: ByteBudget) => ({ connections: connectionLimit(config.smtpMaxConnectionsPerIp), budget })
    await start('mx', keepBytes, (watched, budget) => createMxListener(reports, mxSettings, guards(budget), tls, watched), 'MX listener', 'MAILSTEAD_MX_PORT', config.mxPort)
  }
  if (config.relayPort !== null) {
    const make = (watched: ObserveSessions, budget: ByteBudget) => createRelay(relay, relaySettings, { ...relayGuards, budget }, tls, false, watched)
    await start('relay', maxMessageBytes, make, 'SMTP relay', 'MAILSTEAD_RELAY_PORT', config.relayPort)
  }
  if (config.relayTlsPort !== null && !tls.configured) {
    logger.info('SMTP', 'SMTP relay with TLS (465) is off: it needs a real certificate, set MAILSTEAD_TLS_CERT and MAILSTEAD_TLS_KEY')
  } else if (config.relayTlsPort !== null) {
    const make = (watched: ObserveSessions, budget: ByteBudget) => createRelay(relay, relaySettings, { ...relayGuards, budget }, tls, true, watched)
    await start('relayTls', maxMessageBytes, make, 'SMTP relay (TLS)', 'MAILSTEAD_RELAY_TLS_PORT', config.relayTlsPort)
  }
  const stopWatching = watchTls(config, logger, (material) => {
    for (const server of servers.values()) server.updateSecureContext({ key: material.key, cert: material.cert })
  })
  return {
    status: () => ({ ...status }),
    /**
     * Takes no more connections or transactions; lets those under way finish within `graceMs`.
     * Answers how many connections were cut off at the end of it.
     */
    async stop(graceMs: number): Promise<number> {
      stopWatching()
      const up = [...servers.entries()].filter(([name]) => status[name].state === 'up')
      const cut = await Promise.all(up.map(([, server]) => drainListener(server, graceMs)))
      for (const stopLimit of stopLimits) stopLimit()
      return cut.reduce((sum, n) => sum + n, 0)
    },
  }
}

export type SmtpListeners = Awaited<ReturnType<typeof startSmtpListeners>>
