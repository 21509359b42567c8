import type { networkInterfaces } from 'node:os'
import { spf } from 'mailauth/lib/spf'
import { sendingDomains } from '../core/domains/index.ts'
import { returnPathHost } from '../core/domains/records.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { DnsAnswer, RecordType, Resolver } from '../lib/dns.ts'
import { countByStatus, finding, needsAttention, type Finding } from '../lib/findings.ts'
import type { Logger } from '../lib/logger.ts'
import { blocklistName, reverseName } from './blocklists.ts'
import { nodeStyleResolver } from './node-resolver.ts'
import {
  addressType,
  answerOf,
  judgeBlocklist,
  judgeHostname,
  judgePtr,
  judgePublicIps,
  judgeSpf,
  type Answer,
} from './reputation.ts'
import { serverIps } from './server-ips.ts'
import { abandonRun, claimRun, readReport, saveReport, type ServerReport, type StoredReport } from './server-checks.repository.ts'

export interface SelfCheckSettings {
  /** MAILSTEAD_HOSTNAME: the EHLO name. */
  hostname: string
  /** MAILSTEAD_PUBLIC_IPS, or null to take the interfaces' public addresses. */
  publicIps: readonly string[] | null
  /** DNS blocklist zones to look each address up in. */
  blocklists: readonly string[]
  /** `host:port` of the smarthost when mail leaves through one. */
  smarthost: string | null
}

export interface SelfCheckDeps {
  db: Db
  resolver: Resolver
  settings: SelfCheckSettings
  /** The machine's network interfaces; tests give their own. */
  interfaces?: () => ReturnType<typeof networkInterfaces>
}

/** SPF evaluations in flight at once: each asks a few questions, and there may be many domains. */
const SPF_CONCURRENCY = 8
/** PTR names followed back at most (RFC 7208 4.6.4 stops at 10 as well). */
const MAX_PTR_NAMES = 10

/**
 * Runs the reputation self-checks once: the sending addresses, each one's PTR and FCrDNS, the
 * host name's A/AAAA, the blocklists, and the SPF of every verified domain's return path for
 * each address. Every query is bounded by the resolver's timeout and asked once per run.
 */
export async function runSelfChecks(deps: SelfCheckDeps): Promise<ServerReport> {
  const { hostname, publicIps, smarthost } = deps.settings
  const basis = basisOf(deps.settings)
  if (smarthost) {
    const note = `Mail leaves through the smarthost ${smarthost}: receivers judge its addresses, not this server's, so they are not checked here.`
    return { hostname, ips: [], findings: [finding('public-ips', 'this server', 'skipped', note)], basis }
  }
  const ips = serverIps(publicIps, deps.interfaces?.())
  const findings = [judgePublicIps(ips, publicIps !== null)]
  if (ips.length === 0) return { hostname, ips, findings, basis }
  const ask = askOnce(deps.resolver)
  const perAddress = await Promise.all(ips.map((ip) => checkAddress(ask, ip, deps.settings)))
  const domains = await sendingDomains(deps.db)
  const resolve = nodeStyleResolver(ask.raw) as never
  const pairs = domains.flatMap((domain) => ips.map((ip) => [domain, ip] as const))
  const spfFindings = await mapLimit(pairs, SPF_CONCURRENCY, async ([domain, ip]) => {
    const host = returnPathHost(domain)
    try {
      const result = await spf({ sender: `bounces@${host}`, ip, helo: hostname, mta: hostname, resolver: resolve })
      return judgeSpf(domain.name, host, ip, hostname, { result: result.status.result, comment: result.status.comment, record: result.rr })
    } catch (error) {
      return judgeSpf(domain.name, host, ip, hostname, { result: 'temperror', comment: `: ${(error as Error).message}` })
    }
  })
  return { hostname, ips, findings: [...findings, ...perAddress.flat(), ...spfFindings], basis }
}

const basisOf = (settings: SelfCheckSettings) => JSON.stringify([settings.hostname, settings.publicIps, settings.blocklists, settings.smarthost])

type Ask = ((name: string, type: RecordType) => Promise<Answer>) & { raw: (name: string, type: RecordType) => Promise<DnsAnswer> }

/** Asks each question once in a run, however many checks need its answer. */
function askOnce(resolver: Resolver): Ask {
  const asked = new Map<string, Promise<DnsAnswer>>()
  const raw = (name: string, type: RecordType) => {
    const key = `${type} ${name.toLowerCase()}`
    let answer = asked.get(key)
    if (!answer) asked.set(key, (answer = resolver.query(name, type)))
    return answer
  }
  const ask = (name: string, type: RecordType) => raw(name, type).then((a) => answerOf(a, type), (e: Error) => answerOf(e, type))
  return Object.assign(ask, { raw })
}

async function checkAddress(ask: Ask, ip: string, settings: SelfCheckSettings): Promise<Finding[]> {
  const { hostname } = settings
  const type = addressType(ip)
  const [ptr, host, lists] = await Promise.all([
    checkPtr(ask, ip, hostname),
    ask(hostname, type).then((answer) => judgeHostname(hostname, ip, answer)),
    Promise.all(
      settings.blocklists.map(async (zone) => {
        const name = blocklistName(ip, zone)
        return judgeBlocklist(ip, zone, name ? await ask(name, 'A') : undefined)
      }),
    ),
  ])
  return [...ptr, host, ...lists]
}

async function checkPtr(ask: Ask, ip: string, hostname: string): Promise<Finding[]> {
  const ptr = await ask(reverseName(ip), 'PTR')
  const names = 'values' in ptr ? ptr.values.slice(0, MAX_PTR_NAMES) : []
  const forward = new Map(await Promise.all(names.map(async (name) => [name, await ask(name, addressType(ip))] as const)))
  return judgePtr(ip, ptr, forward, hostname)
}

async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** The name the reputation checks' report is stored under. */
export const REPUTATION = 'reputation'
/** How old a report may grow before the checker makes a new one. */
export const SELF_CHECK_INTERVAL_MS = 3_600_000
/** A run older than this is taken to have died with its process. */
const LEASE_MS = 10 * 60_000

export interface ServerChecksDeps extends SelfCheckDeps {
  /** Runs a write: the server's group-commit writer, or a plain transaction in the CLI. */
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
}

/**
 * The reputation self-checks with their stored report: `runIfDue` on the DNS checker's timer
 * (nothing when the stored report is fresh or another process is making one), `run` now.
 */
export function createServerChecks(deps: ServerChecksDeps) {
  const { clock, logger } = deps

  async function run(): Promise<StoredReport> {
    const report = await runSelfChecks(deps)
    const checkedAt = clock.now()
    await deps.write((trx) => saveReport(trx, REPUTATION, report, checkedAt))
    for (const f of report.findings.filter(needsAttention)) {
      logger.warn(`SELFCHECK[${f.status}]`, f.message, { check: f.check, subject: f.subject })
    }
    logger.info('SELFCHECK', 'server self-checks done', countByStatus(report.findings))
    return { ...report, checkedAt }
  }

  async function runIfDue(): Promise<StoredReport | undefined> {
    const latest = await readReport(deps.db, REPUTATION)
    // Made under other settings (a host name or addresses changed since): due now, however new.
    const freshMs = latest && latest.basis !== basisOf(deps.settings) ? 0 : SELF_CHECK_INTERVAL_MS
    if (latest && clock.now() - latest.checkedAt < freshMs) return undefined
    const claimed = await deps.write((trx) => claimRun(trx, REPUTATION, clock.now(), freshMs, LEASE_MS))
    if (!claimed) return undefined
    try {
      return await run()
    } catch (error) {
      await deps.write((trx) => abandonRun(trx, REPUTATION))
      throw error
    }
  }

  return { run, runIfDue, latest: () => readReport(deps.db, REPUTATION) }
}

export type ServerChecks = ReturnType<typeof createServerChecks>
