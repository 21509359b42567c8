import { isIP } from 'node:net'
import { hostname as osHostname } from 'node:os'
import { canonicalIp } from '../lib/ip.ts'
import { LOG_LEVELS, type LogLevel } from '../lib/logger.ts'
import * as p from './parsers.ts'
import { systemNameServers } from './resolv-conf.ts'
import { defaultDataDir } from './data-dir.ts'
import { readOrCreateSecret } from './secret.ts'
import { DELIVERY_SETTINGS, type IpFamily } from './delivery-settings.ts'
import { RATE_LIMIT_SETTINGS } from './rate-limit-settings.ts'
import { SMTP_SETTINGS } from './smtp-settings.ts'
import { setting, type Setting } from './setting.ts'
import type { SiteOverride } from './sites.ts'

export interface Config {
  readonly dataDir: string
  readonly databaseUrl: string | null
  readonly role: readonly Role[]
  readonly leaseSeconds: number
  readonly httpHost: string
  readonly httpPort: number
  readonly publicUrl: string
  readonly hostname: string
  readonly publicIps: readonly string[] | null
  readonly dnsServers: readonly p.HostPort[]
  readonly dnsTimeoutMs: number
  readonly blocklists: readonly string[]
  readonly outboundCheckTarget: p.HostPort
  readonly secret: string
  readonly rateLimitPerMinute: number
  readonly trackRateLimitPerMinute: number
  readonly trackRateLimitPerAddressPerMinute: number
  readonly formRateLimitPerAddressPerMinute: number
  readonly unauthenticatedRateLimitPerMinute: number
  readonly trustedProxies: readonly string[]
  readonly logLevel: LogLevel
  readonly metricsToken: string | null
  readonly regions: readonly string[]
  readonly returnPathLabel: string
  readonly domainCheckPendingMinutes: number
  readonly domainCheckVerifiedMinutes: number
  readonly domainGraceHours: number
  readonly deliveryPort: number
  readonly deliveryIpFamily: IpFamily
  readonly deliveryAllowPrivateTargets: boolean
  readonly smarthost: p.Smarthost | null
  readonly deliveryConcurrency: number
  readonly deliveryPerDomain: number
  readonly deliveryShaping: boolean
  readonly deliverySites: Readonly<Record<string, SiteOverride>>
  readonly warmup: 'auto' | 'on' | 'off'
  readonly warmupSchedule: readonly number[]
  readonly sendRatePerSecond: number
  readonly deliveryRetrySchedule: readonly number[]
  readonly deliveryMaxAgeHours: number
  readonly smtpTimeoutSeconds: number
  readonly deliveryAttemptTimeoutSeconds: number
  readonly deliveryVerifyCertificates: boolean
  readonly deliveryCaFile: string | null
  readonly mtaStsPort: number
  readonly mailWorkers: number
  readonly smtpHost: string
  readonly mxPort: number | null
  readonly fblAddress: string
  readonly systemSender: string
  readonly fblSenders: readonly string[]
  readonly relayPort: number | null
  readonly relayTlsPort: number | null
  readonly relayAllowInsecureAuth: boolean
  readonly relayMaxRecipients: number
  readonly relayDropOriginHeaders: boolean
  readonly relayBounceNotices: boolean
  readonly smtpMaxMessageMb: number
  readonly smtpMaxConnectionsPerIp: number
  readonly smtpMaxConnections: number
  readonly smtpProxyFrom: readonly string[]
  readonly smtpCommandTimeoutSeconds: number
  readonly smtpDataTimeoutSeconds: number
  readonly smtpAnonymousTimeoutSeconds: number
  readonly smtpMaxCommandsWithoutMessage: number
  readonly smtpMaxInFlightMb: number
  readonly mxKeepKb: number
  readonly tlsCert: string | null
  readonly tlsKey: string | null
  readonly webhookAllowPrivateTargets: boolean
  readonly retentionDays: number
  readonly guardrailWindowHours: number
  readonly guardrailComplaintPercent: number
  readonly guardrailHardBouncePercent: number
  readonly guardrailMinDeliveries: number
  readonly stopGraceSeconds: number
  readonly sessionMaxPerAccount: number
  readonly sessionMaxAgeDays: number
}

/** An IP address or a CIDR range ("ip/bits"), canonical, or undefined. */
function ipRange(text: string): string | undefined {
  const [address, bits, ...rest] = text.split('/')
  const ip = canonicalIp(address!)
  if (!ip || rest.length > 0) return undefined
  if (bits === undefined) return ip
  const max = ip.includes(':') ? 128 : 32
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max ? `${ip}/${Number(bits)}` : undefined
}

/** A sending region label. */
export const REGION = /^[a-z0-9-]{1,32}$/

/** The parts of the work a process may take on (`role`); one process takes all by default. */
export const ROLES = ['http', 'smtp', 'delivery', 'scheduler'] as const
export type Role = (typeof ROLES)[number]

/** Always allowed, whatever the configuration adds. */
export const DEFAULT_REGION = 'us-east-1'

export type { Setting }
export { DEFAULT_RETRY_SCHEDULE, DEFAULT_WARMUP_SCHEDULE, IP_FAMILIES, type IpFamily } from './delivery-settings.ts'

/** Every setting: the single source for defaults, parsing, environment names, flags and docs. */
export const SETTINGS = [
  setting({
    key: 'dataDir',
    description: 'Directory for the SQLite database, the generated secret and other state',
    allowed: 'a directory path',
    parse: p.nonEmpty,
    fallback: () => defaultDataDir(),
    shownDefault: '`data` at the root of the Mailstead checkout it runs in (from any folder of it), else `./data`',
  }),
  setting({
    key: 'databaseUrl',
    description: 'PostgreSQL to keep the data in instead of SQLite in the data directory, for several processes sharing one database',
    allowed: 'a postgres:// or postgresql:// URL, such as postgres://mailstead:password@db:5432/mailstead',
    parse: p.postgresUrl,
    fallback: () => null,
    shownDefault: 'none: SQLite, `<dataDir>/mailstead.db`',
    secret: true,
  }),
  setting({
    key: 'role',
    description:
      'What this process does, for a cluster that splits the work: http (the API and console), smtp (the MX and relay listeners), delivery (sending to MX hosts), scheduler (campaigns, workflows, webhooks, imports, domain checks, pruning)',
    allowed: `a comma-separated list of ${ROLES.join(', ')}`,
    parse: (text) => {
      const roles = p.listOf(p.oneOf(ROLES))(text)
      return roles && roles.length > 0 ? (ROLES.filter((role) => roles.includes(role)) as Role[]) : undefined
    },
    fallback: () => [...ROLES],
    shownDefault: 'all of them',
    format: (roles) => roles.join(','),
  }),
  setting({
    key: 'leaseSeconds',
    description:
      'How long a process holds a claim of work (a delivery, a webhook call, a workflow run, a campaign, an import, a domain check) or the lease of a singleton (the DNS checker, membership tracking, pruning, guardrails) without renewing it: how soon another process takes over after a crash',
    allowed: 'an integer from 1 to 3600',
    parse: p.integer(1, 3600),
    fallback: () => 30,
  }),
  setting({
    key: 'httpHost',
    description: 'Address the HTTP API listens on',
    allowed: 'an IP address or host name',
    parse: p.host,
    fallback: () => '127.0.0.1',
  }),
  setting({
    key: 'httpPort',
    description: 'Port of the HTTP API (0 picks a free one)',
    allowed: 'an integer from 0 to 65535',
    parse: p.integer(0, 65535),
    fallback: () => 3000,
  }),
  setting({
    key: 'publicUrl',
    description: 'Base URL of links in mail (tracking, unsubscribe)',
    allowed: 'an http:// or https:// URL',
    parse: p.httpUrl,
    fallback: (c) => `http://${c.httpHost}:${c.httpPort}`,
    shownDefault: '`http://<httpHost>:<httpPort>`',
  }),
  setting({
    key: 'hostname',
    description: 'Host name used in EHLO and as the MX host of return paths; not a fully qualified public name, it is warned of at start and by domain add',
    allowed: 'a host name such as mail.example.com',
    parse: p.hostname,
    fallback: () => osHostname().toLowerCase(),
    shownDefault: "the machine's host name",
  }),
  setting({
    key: 'publicIps',
    description: 'Public IP addresses this server sends mail from, comma-separated (what its self-checks and DMARC reports judge)',
    allowed: 'a comma-separated list of IPv4 and IPv6 addresses',
    parse: p.listOf((text) => (isIP(text) ? text.toLowerCase() : undefined)),
    fallback: () => null,
    shownDefault: "the public addresses of the machine's network interfaces",
    format: (ips) => (ips ? ips.join(',') : ''),
  }),
  setting({
    key: 'dnsServers',
    description: 'DNS resolvers to query, comma-separated host[:port] (default: /etc/resolv.conf)',
    allowed: 'a comma-separated list of host[:port]',
    parse: p.hostPortList(53),
    fallback: () => systemNameServers(),
    shownDefault: 'the name servers of `/etc/resolv.conf`',
    format: (servers) => servers.map((s) => `${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`).join(','),
  }),
  setting({
    key: 'dnsTimeoutMs',
    description: 'How long one DNS query may take, in milliseconds',
    allowed: 'an integer from 50 to 60000',
    parse: p.integer(50, 60_000),
    fallback: () => 3000,
  }),
  setting({
    key: 'blocklists',
    description: "DNS blocklists the server's self-checks look its public IPs up in, comma-separated zones (off: none)",
    allowed: 'a comma-separated list of DNS zones, or off',
    parse: (text) => (text === 'off' ? [] : p.listOf(p.hostname)(text)),
    fallback: () => ['zen.spamhaus.org', 'b.barracudacentral.org', 'bl.spamcop.net'],
    format: (zones) => (zones.length > 0 ? zones.join(',') : 'off'),
  }),
  setting({
    key: 'outboundCheckTarget',
    description: 'Mail server that `mailstead doctor` connects to, to see that outbound port 25 is open',
    allowed: 'host[:port]',
    parse: (text) => p.hostPort(text, 25),
    fallback: () => ({ host: 'gmail-smtp-in.l.google.com', port: 25 }),
    format: (target) => `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`,
  }),
  setting({
    key: 'secret',
    description: 'Signs tokens in links; generated into the data directory when unset',
    allowed: 'at least 32 characters',
    parse: p.minLength(32),
    fallback: (c) => readOrCreateSecret(c.dataDir!),
    shownDefault: 'generated into `<dataDir>/secret`',
    secret: true,
  }),
  ...RATE_LIMIT_SETTINGS,
  setting({
    key: 'trustedProxies',
    description: 'Reverse proxies whose X-Forwarded-For names the client, comma-separated (none: the socket\'s peer is the client)',
    allowed: 'a comma-separated list of IP addresses and CIDR ranges, or none',
    parse: (text) => (text === 'none' ? [] : p.listOf(ipRange)(text)),
    fallback: () => [],
    shownDefault: 'none',
    format: (ranges) => (ranges.length > 0 ? ranges.join(',') : 'none'),
  }),
  setting({
    key: 'logLevel',
    description: 'Least severe log level written',
    allowed: LOG_LEVELS.join(', '),
    parse: p.oneOf(LOG_LEVELS),
    fallback: () => 'info',
  }),
  setting({
    key: 'metricsToken',
    description: 'Bearer token that GET /metrics (Prometheus) requires; unset, there is no /metrics',
    allowed: 'at least 16 characters',
    parse: p.minLength(16),
    fallback: () => null,
    shownDefault: 'none: /metrics is off',
    secret: true,
    format: (token) => token ?? '',
  }),
  setting({
    key: 'regions',
    description: 'Sending regions a domain may name besides us-east-1, comma-separated',
    allowed: 'a comma-separated list of labels of 1 to 32 characters a-z, 0-9 and -',
    parse: p.listOf(p.matching(REGION)),
    fallback: () => [],
    format: (regions) => regions.join(','),
  }),
  setting({
    key: 'returnPathLabel',
    description: 'Label of the return-path host under each sending domain (<label>.<domain>)',
    allowed: 'one DNS label: a-z, 0-9 and -, 1 to 63 characters, not starting or ending with -',
    parse: p.matching(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/),
    fallback: () => 'mst',
  }),
  setting({
    key: 'domainCheckPendingMinutes',
    description: 'Minutes between DNS checks of a domain that is not verified yet',
    allowed: 'an integer from 1 to 1440',
    parse: p.integer(1, 1440),
    fallback: () => 5,
  }),
  setting({
    key: 'domainCheckVerifiedMinutes',
    description: 'Minutes between DNS checks of a verified domain',
    allowed: 'an integer from 1 to 10080',
    parse: p.integer(1, 10_080),
    fallback: () => 60,
  }),
  setting({
    key: 'domainGraceHours',
    description: 'Hours a domain may stay unverified (or broken after verification) before it is FAILED',
    allowed: 'an integer from 1 to 8760',
    parse: p.integer(1, 8760),
    fallback: () => 72,
  }),
  ...DELIVERY_SETTINGS,
  ...SMTP_SETTINGS,
  setting({
    key: 'webhookAllowPrivateTargets',
    description: 'Let webhooks and workflow WEBHOOK steps call loopback, private and link-local addresses (a trusted network only)',
    allowed: 'true or false',
    parse: p.boolean,
    fallback: () => false,
  }),
  setting({
    key: 'retentionDays',
    description: "Days an email's bodies (HTML, text, built message) are kept; its status and events stay (0: forever)",
    allowed: 'an integer from 0 to 36500',
    parse: p.integer(0, 36_500),
    fallback: () => 30,
  }),
  setting({
    key: 'guardrailWindowHours',
    description: 'Hours of the rolling window over which the sending guardrails count, per project and sending domain',
    allowed: 'an integer from 1 to 720',
    parse: p.integer(1, 720),
    fallback: () => 24,
  }),
  setting({
    key: 'guardrailComplaintPercent',
    description: 'Complaints, in per cent of the mail delivered in the window, over which campaigns pause themselves (100: never)',
    allowed: 'a number from 0 to 100, such as 0.3',
    parse: p.decimal(0, 100),
    fallback: () => 0.3,
  }),
  setting({
    key: 'guardrailHardBouncePercent',
    description: 'Hard bounces, in per cent of the mail sent in the window, over which campaigns pause themselves (100: never)',
    allowed: 'a number from 0 to 100, such as 5',
    parse: p.decimal(0, 100),
    fallback: () => 5,
  }),
  setting({
    key: 'guardrailMinDeliveries',
    description: 'Messages sent (delivered or bounced) in the window before the guardrails judge its rates',
    allowed: 'an integer from 1 to 10000000',
    parse: p.integer(1, 10_000_000),
    fallback: () => 1000,
  }),
  setting({
    key: 'sessionMaxPerAccount',
    description: 'Console sessions one account may hold at once: a new sign-in past it ends the oldest',
    allowed: 'an integer from 1 to 1000',
    parse: p.integer(1, 1000),
    fallback: () => 20,
  }),
  setting({
    key: 'sessionMaxAgeDays',
    description: 'Days a console session lasts at most from its sign-in, however often it is used (it also ends after two weeks unused)',
    allowed: 'an integer from 1 to 3650',
    parse: p.integer(1, 3650),
    fallback: () => 30,
  }),
  setting({
    key: 'stopGraceSeconds',
    description: 'Seconds a stopping server lets SMTP transactions, HTTP requests and delivery attempts in progress finish',
    allowed: 'an integer from 0 to 3600',
    parse: p.integer(0, 3600),
    fallback: () => 8,
  }),
] as const satisfies readonly Setting<any>[]

export const envName = (key: string) => 'MAILSTEAD_' + key.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase()

export const flagName = (key: string) => key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())
