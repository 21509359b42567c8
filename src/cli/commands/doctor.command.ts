import { join } from 'node:path'
import { databasePath, selfCheckSettingsOf } from '../../settings-of.ts'
import { secretPath } from '../../config/secret.ts'
import { privateFileFindings, type PrivatePath } from '../../lib/private-files.ts'
import type { Config } from '../../config/config-schema.ts'
import { describe as describePostgres } from '../../db/postgres.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { checkOutbound, type OutboundTarget } from '../../delivery/outbound-check.ts'
import { hostAddresses } from '../../dns/host-addresses.ts'
import { createResolver } from '../../dns/resolver.ts'
import { createServerChecks } from '../../dns/self-checks.ts'
import { isoTime, systemClock } from '../../lib/clock.ts'
import { AppError } from '../../lib/errors.ts'
import { countByStatus, finding, type Finding, type FindingStatus } from '../../lib/findings.ts'
import { certificateFindings } from '../../smtp/certificate-check.ts'
import { CliError } from '../cli-error.ts'
import { commandLogger, JSON_FLAG, print, type Command, type Context } from '../command.ts'

const DEFAULT_TIMEOUT_SECONDS = 10

const LABELS: Record<FindingStatus, string> = { ok: 'ok', warning: 'WARNING', failed: 'FAILED', unchecked: 'UNCHECKED', skipped: 'skipped' }

export const doctorCommand: Command = {
  name: 'doctor',
  summary:
    "Check the server now: PTR and FCrDNS, host name, blocklists and SPF of its IPs, outbound port 25, the TLS certificate, who may read the data directory (exit code 1 when something failed)",
  flags: {
    timeout: { value: 'seconds', description: `Seconds to wait for the outbound SMTP check (default ${DEFAULT_TIMEOUT_SECONDS})` },
    ...JSON_FLAG,
  },
  async run(context) {
    const timeoutMs = timeoutOf(context)
    await context.withDb(async (db, { config }) => {
      const resolver = createResolver(config.dnsServers, config.dnsTimeoutMs)
      const checks = createServerChecks({
        db,
        write: (work) => writeTransaction(db, work),
        resolver,
        clock: systemClock,
        logger: commandLogger(context),
        settings: selfCheckSettingsOf(config),
      })
      // Stored like the checker's own run, so /health shows the state just checked.
      const [report, outbound] = await Promise.all([checks.run(), checkOutbound(outboundTarget(config), timeoutMs, hostAddresses(resolver))])
      const findings = [...report.findings, outbound, ...certificateFindings(config, Date.now()), ...databaseFindings(config), ...privateFileFindings(dataFiles(config))]
      const counts = countByStatus(findings)
      print(context, { checkedAt: isoTime(report.checkedAt), hostname: report.hostname, ips: report.ips, counts, findings }, () => [
        `Mailstead doctor: ${report.hostname}${report.ips.length > 0 ? `, sending from ${report.ips.join(', ')}` : ''}`,
        '',
        ...findings.flatMap(lines),
        '',
        summary(counts),
      ])
      if (counts.failed > 0) throw new AppError(500, 'DOCTOR_FAILED', `${counts.failed} check${counts.failed === 1 ? '' : 's'} failed`)
    })
  },
}

/**
 * What the data directory holds that no other user should read: the SQLite database and its logs
 * (when the data is there), the secret, TLS keys, uploads.
 */
function dataFiles(config: Config): PrivatePath[] {
  return [
    { path: config.dataDir, kind: 'dir', what: 'the data directory' },
    ...(config.databaseUrl ? [] : sqliteFiles(databasePath(config))),
    { path: secretPath(config.dataDir), kind: 'file', what: 'the secret that signs tokens and seals keys' },
    { path: join(config.dataDir, 'tls'), kind: 'dir', what: 'the self-signed TLS key and certificate' },
    { path: join(config.dataDir, 'tls', 'self-signed.key'), kind: 'file', what: 'the self-signed TLS key' },
    ...(config.tlsKey ? [{ path: config.tlsKey, kind: 'file' as const, what: 'the TLS key (MAILSTEAD_TLS_KEY)' }] : []),
    { path: join(config.dataDir, 'imports'), kind: 'dir', what: 'contact imports being read' },
  ]
}

const sqliteFiles = (database: string): PrivatePath[] => [
  { path: database, kind: 'file', what: 'the database' },
  { path: `${database}-wal`, kind: 'file', what: "the database's write-ahead log" },
  { path: `${database}-shm`, kind: 'file', what: "the database's shared memory" },
]

/**
 * Where the data is, on PostgreSQL: there is no database file in the data directory to check, and
 * who may read the data is for PostgreSQL's roles and pg_hba.conf to say.
 */
function databaseFindings(config: Config): Finding[] {
  if (!config.databaseUrl) return []
  const where = describePostgres(config.databaseUrl)
  return [finding('database', where, 'ok', `The data is in PostgreSQL (${where}): who may read it is set by PostgreSQL's roles and pg_hba.conf, not by files in the data directory.`)]
}

function timeoutOf(context: Context): number {
  const text = context.flags.timeout
  if (text === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000
  const seconds = typeof text === 'string' ? Number(text) : NaN
  if (!(seconds > 0 && seconds <= 300)) throw new CliError('--timeout must be a number of seconds from 0.1 to 300')
  return Math.round(seconds * 1000)
}

/** Where mail leaves for: the smarthost when there is one, else the configured well-known MX. */
function outboundTarget(config: Config): OutboundTarget {
  if (config.smarthost) return { host: config.smarthost.host, port: config.smarthost.port, tls: config.smarthost.secure, role: 'smarthost' }
  return { ...config.outboundCheckTarget, role: 'mx' }
}

function lines(f: Finding): string[] {
  const head = `${LABELS[f.status].padEnd(10)} ${f.check.padEnd(16)} ${f.message}`
  return f.fix && f.status !== 'ok' ? [head, `${''.padEnd(28)}fix: ${f.fix}`] : [head]
}

function summary(counts: Record<FindingStatus, number>): string {
  const parts = [`${counts.ok} ok`, `${counts.warning} warning${counts.warning === 1 ? '' : 's'}`, `${counts.failed} failed`]
  if (counts.unchecked > 0) parts.push(`${counts.unchecked} could not be checked`)
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`)
  return parts.join(', ')
}
