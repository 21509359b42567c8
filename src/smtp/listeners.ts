import type { SMTPServer } from 'smtp-server'
import type { Config } from '../config/config-schema.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'
import type { ReportDeps } from './handle-report.ts'
import { connectionLimit, drainListener, listen, type Listening, type ListenerStatus } from './listener.ts'
import { createByteBudget, type ByteBudget } from './message-budget.ts'
import { createMxListener } from './mx-listener.ts'
import { createRelay, type RelayDeps } from './relay.ts'
import { sessionLimits } from './session-limits.ts'
import { sessionMetrics, type ObserveSessions } from './session-metrics.ts'
import { loadTls, watchTls } from './tls.ts'

export type ListenerName = 'mx' | 'relay' | 'relayTls'

/**
 * Where a listener moves when its port was left at the default (25, 587, 465), which only root
 * or CAP_NET_BIND_SERVICE may bind: `npm start` as a normal user then runs whole, on ports that
 * local mail tools know, instead of starting degraded.
 */
export const UNPRIVILEGED_PORTS: Record<ListenerName, number> = { mx: 2525, relay: 2587, relayTls: 2465 }

const PORT_SETTINGS: Record<ListenerName, 'mxPort' | 'relayPort' | 'relayTlsPort'> = { mx: 'mxPort', relay: 'relayPort', relayTls: 'relayTlsPort' }

/** The fallback ports of the listeners whose port setting was not given: a port set explicitly fails loudly. */
export function portFallbacks(sources: Record<keyof Config, string>): Partial<Record<ListenerName, number>> {
  const names = Object.keys(PORT_SETTINGS) as ListenerName[]
  return Object.fromEntries(names.filter((name) => sources[PORT_SETTINGS[name]] === 'default').map((name) => [name, UNPRIVILEGED_PORTS[name]]))
}

/**
 * Starts the SMTP listeners the configuration asks for. Each stands alone: one that cannot start
 * is reported down, and the others (and the HTTP API) keep running.
 */
export async function startSmtpListeners(config: Config, reports: ReportDeps, relay: RelayDeps, logger: Logger, metrics: Registry, fallbacks: Partial<Record<ListenerName, number>> = {}) {
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
  const serveOn = async (name: ListenerName, keepBytes: number, make: (observe: ObserveSessions, budget: ByteBudget) => SMTPServer, label: string, port: number): Promise<Listening> => {
    const budget = createByteBudget(Math.max(config.smtpMaxInFlightMb * 1024 * 1024, keepBytes))
    const limits = sessionLimits(limitSettings, budget, logger)
    // Behind a load balancer that speaks the PROXY protocol, the client is the one its header names.
    const proxied = config.smtpProxyFrom.length > 0 ? { useProxy: [...config.smtpProxyFrom] } : {}
    const server = make((options) => ({ ...limits.options(observe(name)(options)), ...proxied }), budget)
    const stopLimit = limits.watch(server)
    const listening = await listen(server, label, config.smtpHost, port, logger)
    if (listening.state === 'down') stopLimit()
    else (stopLimits.push(stopLimit), servers.set(name, server))
    return listening
  }
  /** Listeners moved to their unprivileged port, for the one log line that says so. */
  const moved: string[] = []
  const start = async (name: ListenerName, keepBytes: number, make: (observe: ObserveSessions, budget: ByteBudget) => SMTPServer, label: string, setting: string, port: number) => {
    let listening = await serveOn(name, keepBytes, make, label, port)
    const fallback = fallbacks[name]
    if (listening.code === 'EACCES' && fallback !== undefined) {
      listening = await serveOn(name, keepBytes, make, label, fallback)
      if (listening.state === 'up') moved.push(`the ${label} on ${listening.port} instead of ${port} (${setting})`)
    }
    if (listening.state === 'down') {
      logger.error('SMTP', `${label} is not running: cannot listen on ${config.smtpHost}:${listening.port} (${listening.hint}); change ${setting}`, { code: listening.code })
    }
    const { code: _code, hint: _hint, ...shown } = listening
    status[name] = shown
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
  if (moved.length > 0) {
    logger.warn('SMTP', `The default SMTP ports need root or CAP_NET_BIND_SERVICE, so this server listens with ${moved.join(' and ')}; set the ports to choose others`)
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
