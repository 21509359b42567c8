import { BlockList, isIP } from 'node:net'
import type { MtaStsOutcome } from '../core/queue/index.ts'
import { addressRefusal } from '../lib/outbound/addresses.ts'
import { TemporaryDnsError, type MxResolver } from './mx.ts'
import { NetworkError, type Reply, type SmtpPool, type Target } from './smtp-client.ts'
import type { RouteProbe } from './ip-routes.ts'
import { mxMatches, type MtaStsResult } from './mta-sts.ts'
import { describeFailure, Trace } from './trace.ts'

export interface TransferSettings {
  /** The remote SMTP port: 25, or another for tests. */
  port: number
  /** Everything goes through this relay instead of recipients' MX hosts. */
  smarthost?: Omit<Target, 'address'>
  /** MX hosts at loopback, private and link-local addresses may be delivered to (tests, a private network). */
  allowPrivate: boolean
}

/** What one attempt to hand a message over came to. */
export type Transfer =
  /** A server answered the message: its reply decides. */
  | { kind: 'reply'; reply: Reply; host: string; address: string; port: number; trace: Trace; mtaSts?: MtaStsOutcome }
  /** The domain takes no mail, or does not exist: no attempt can succeed. */
  | { kind: 'no-route'; reason: string; category: 'null-mx' | 'domain' }
  /**
   * No server answered the message; the trace says what happened to each host and address, and
   * `reply` is the last thing a server said (a 421 greeting), if any.
   */
  | { kind: 'unreached'; trace: Trace; category: 'dns' | 'network'; reply?: string }

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** Addresses one attempt connects to at most, over all its MX hosts. */
export const MAX_ADDRESSES = 10

/**
 * Hands a message to the recipient domain's MX hosts, in preference order (at most 5 hosts and 10
 * addresses), or to the smarthost. Each host's addresses come from A and AAAA asked independently;
 * an address of a family this host has no route to is skipped at once.
 */
export interface TransferDeps {
  mx: MxResolver
  pool: SmtpPool
  routed: RouteProbe
  /** A recipient domain's MTA-STS policy (RFC 8461). */
  mtaSts: (domain: string) => Promise<MtaStsResult>
  settings: TransferSettings
}

export function createTransfer(deps: TransferDeps) {
  const { mx, pool, routed, settings } = deps
  /** The hosts to try, or why there are none. */
  async function hostsFor(domain: string, trace: Trace): Promise<string[] | Exclude<Transfer, { kind: 'reply' }>> {
    if (settings.smarthost) return [settings.smarthost.host]
    try {
      const route = await mx.route(domain)
      if (route.kind === 'null-mx') return { kind: 'no-route', reason: 'The domain accepts no mail (null MX)', category: 'null-mx' }
      if (route.kind === 'no-domain') return { kind: 'no-route', reason: `The domain ${domain} does not exist or has no mail server`, category: 'domain' }
      return route.hosts
    } catch (error) {
      if (!(error instanceof TemporaryDnsError)) throw error
      trace.host(domain, error.message)
      return { kind: 'unreached', trace, category: 'dns' }
    }
  }

  /** Why an address is not tried, if it is not. */
  async function skipReason(address: string): Promise<string | undefined> {
    const refusal = settings.smarthost || settings.allowPrivate ? undefined : addressRefusal(address)
    if (refusal) return `skipped: ${refusal} (MAILSTEAD_DELIVERY_ALLOW_PRIVATE_TARGETS is off)`
    const family = isIP(address) as 4 | 6
    // Loopback is reachable without a route (tests); anything else needs one.
    if (!LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4') && !(await routed(family))) return `skipped: this host has no IPv${family} route`
  }

  return async function transfer(domain: string, from: string, to: string, message: Uint8Array, deadline: number, limits: { messagesPerConnection?: number } = {}): Promise<Transfer> {
    const trace = new Trace()
    const found = await hostsFor(domain, trace)
    if (!Array.isArray(found)) return found
    const sts: MtaStsResult = settings.smarthost ? { status: 'none' } : await deps.mtaSts(domain)
    const enforce = sts.status === 'policy' && sts.policy.mode === 'enforce' ? sts.policy : undefined
    const hosts = enforce ? found.filter((host) => mxMatches(enforce, host)) : found
    for (const host of found) if (!hosts.includes(host)) trace.host(host, `${host} skipped: not an MX host of ${domain}'s MTA-STS policy (mx: ${enforce!.mx.join(', ')})`)
    const base = { ...(settings.smarthost ?? { port: settings.port }), ...(enforce && { requireTls: true }) }
    let tried = 0
    let skipped = false
    let lastReply: string | undefined
    for (const host of hosts) {
      if (!settings.smarthost && isIP(host)) {
        trace.host(host, `${host} is an address, not a host name (RFC 5321 5.1): skipped`)
        continue
      }
      const { addresses, problems } = await mx.addresses(host)
      for (const problem of problems) trace.host(host, problem)
      if (addresses.length === 0 && problems.length === 0) trace.host(host, `${host} has no address records`)
      for (const address of addresses) {
        const skip = await skipReason(address)
        if (skip) {
          trace.address(host, address, base.port, skip)
          skipped = true
          continue
        }
        if (tried === MAX_ADDRESSES || Date.now() >= deadline) return { kind: 'unreached', trace, category: 'network', ...(lastReply && { reply: lastReply }) }
        tried++
        try {
          const reply = await pool.send({ ...base, ...limits, host, address }, from, to, message, deadline)
          const mtaSts = stsOutcome(sts, host, reply)
          return { kind: 'reply', reply, host, address, port: base.port, trace, ...(mtaSts && { mtaSts }) }
        } catch (error) {
          if (!(error instanceof NetworkError)) throw error
          trace.address(host, address, base.port, describeFailure(error))
          lastReply = error.response ?? lastReply
        }
      }
    }
    // Nothing was tried and nothing was passed over: DNS gave no address to try.
    return { kind: 'unreached', trace, category: tried === 0 && !skipped ? 'dns' : 'network', ...(lastReply && { reply: lastReply }) }
  }
}

export type TransferFn = ReturnType<typeof createTransfer>

/** What MTA-STS made of an attempt that got a reply; undefined when the domain has no MTA-STS. */
function stsOutcome(sts: MtaStsResult, host: string, reply: Reply): MtaStsOutcome | undefined {
  if (sts.status === 'none') return undefined
  if (sts.status === 'failed') return { mode: 'none', applied: false, failure: sts.reason }
  const { policy } = sts
  if (policy.mode === 'none') return { mode: 'none', applied: false }
  if (policy.mode === 'enforce') return { mode: 'enforce', applied: true }
  // Testing: delivered as usual; what enforce would have refused is recorded.
  const failure = !mxMatches(policy, host)
    ? `${host} is not an MX host of the policy (mx: ${policy.mx.join(', ')})`
    : !reply.tls
      ? `${host} took the message without TLS`
      : !reply.tls.verified
        ? `${host}'s certificate is not valid for it`
        : /^TLSv1(\.[01])?$/.test(reply.tls.version)
          ? `${host} spoke ${reply.tls.version}, older than TLS 1.2`
          : undefined
  return { mode: 'testing', applied: false, ...(failure && { failure }) }
}
