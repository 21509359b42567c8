import * as p from './parsers.ts'
import { setting } from './setting.ts'
import { parseSiteOverrides } from './sites.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * How long to wait after each failed attempt; the last wait repeats until the message expires.
 * Cumulative from the first attempt: 1m, 6m, 21m, 51m, 1h51m, 3h51m, 7h51m, 15h51m, then every 8 h.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  1 * MINUTE, // 1m
  5 * MINUTE, // 6m
  15 * MINUTE, // 21m
  30 * MINUTE, // 51m
  1 * HOUR, // 1h51m
  2 * HOUR, // 3h51m
  4 * HOUR, // 7h51m
  8 * HOUR, // 15h51m, and every 8 h after
]

/**
 * Messages per day to each large provider while warming up, day 1 first: the ramps the providers'
 * and ESPs' warm-up guides describe, doubling about every day at first, then more slowly.
 */
export const DEFAULT_WARMUP_SCHEDULE: readonly number[] = [50, 100, 200, 400, 800, 1500, 3000, 5000, 8000, 12_000, 20_000, 30_000, 45_000, 70_000, 100_000]

/** Which addresses of an MX host delivery connects to. */
export const IP_FAMILIES = ['any', 'ipv4', 'ipv6'] as const
export type IpFamily = (typeof IP_FAMILIES)[number]

/** The settings of delivery: where mail goes, how fast, how it is shaped and retried, how it is signed. */
export const DELIVERY_SETTINGS = [
  setting({
    key: 'deliveryPort',
    description: "Port of recipients' mail servers (25; another only for tests)",
    allowed: 'an integer from 1 to 65535',
    parse: p.integer(1, 65535),
    fallback: () => 25,
  }),
  setting({
    key: 'deliveryIpFamily',
    description: "Addresses of recipients' MX hosts to connect to: any (IPv6 and IPv4 in turn), ipv4 or ipv6 only",
    allowed: IP_FAMILIES.join(', '),
    parse: p.oneOf(IP_FAMILIES),
    fallback: () => 'any',
  }),
  setting({
    key: 'deliveryAllowPrivateTargets',
    description: 'Deliver to MX hosts and MTA-STS policy hosts at loopback, private and link-local addresses (tests, a private network); off, such addresses are skipped',
    allowed: 'true or false',
    parse: p.boolean,
    fallback: () => false,
  }),
  setting({
    key: 'smarthost',
    description: 'Send everything through this relay instead of recipients\' MX hosts (when port 25 is blocked)',
    allowed: 'smtp://user:pass@host:port or smtps://user:pass@host:port',
    parse: p.smarthostUrl,
    fallback: () => null,
    shownDefault: 'none: straight to MX hosts',
    secret: true,
    format: (relay) => (relay ? `${relay.secure ? 'smtps' : 'smtp'}://${relay.host}:${relay.port}` : ''),
  }),
  setting({
    key: 'deliveryConcurrency',
    description: 'Delivery attempts in flight at once, in all',
    allowed: 'an integer from 1 to 10000',
    parse: p.integer(1, 10_000),
    fallback: () => 100,
  }),
  setting({
    key: 'deliveryPerDomain',
    description: 'Delivery attempts in flight at once to one destination site (a set of MX hosts) that no site rule limits',
    allowed: 'an integer from 1 to 1000',
    parse: p.integer(1, 1000),
    fallback: () => 5,
  }),
  setting({
    key: 'deliveryShaping',
    description: "Shape traffic per destination site: the large providers' limits, slowing down and suspending on their replies, warm-up (false: every site gets deliveryPerDomain connections, nothing more)",
    allowed: 'true or false',
    parse: p.boolean,
    fallback: () => true,
  }),
  setting({
    key: 'deliverySites',
    description: 'Site rules over the built-in ones, as JSON: {"gmail": {"connections": 3}, "corp": {"match": [".corp.example"], "messagesPerMinute": 100}} (see Traffic shaping in docs/features/sending.md)',
    allowed: 'a JSON object of site name to {match, label, connections, messagesPerConnection, messagesPerMinute, warmup, automation}',
    parse: parseSiteOverrides,
    fallback: () => ({}),
    format: (sites) => JSON.stringify(sites),
  }),
  setting({
    key: 'warmup',
    description: "Cap each large provider's mail per day while this server is new to it: on, off, or auto (on for a data directory that had delivered nothing when it was created)",
    allowed: 'auto, on or off',
    parse: p.oneOf(['auto', 'on', 'off'] as const),
    fallback: () => 'auto',
  }),
  setting({
    key: 'warmupSchedule',
    description: 'Messages per day to each large provider on day 1, 2, 3, ... since the first delivery there; no cap after the last day',
    allowed: 'a comma-separated list of positive integers',
    parse: (text) => {
      const days = text.split(',').map((part) => Number(part.trim()))
      return days.length > 0 && days.every((day) => Number.isInteger(day) && day > 0) ? days : undefined
    },
    fallback: () => DEFAULT_WARMUP_SCHEDULE,
    format: (days) => days.join(','),
  }),
  setting({
    key: 'sendRatePerSecond',
    description: 'Emails per second per project (a project may override it)',
    allowed: 'an integer from 1 to 100000',
    parse: p.integer(1, 100_000),
    fallback: () => 14,
  }),
  setting({
    key: 'deliveryRetrySchedule',
    description: 'Waits between attempts after a temporary failure; the last repeats',
    allowed: 'a comma-separated list of durations such as 1m,5m,1h (units s, m, h, d)',
    parse: p.durationList,
    fallback: () => DEFAULT_RETRY_SCHEDULE,
    format: p.formatDurations,
  }),
  setting({
    key: 'deliveryMaxAgeHours',
    description: 'Hours a message is retried before it bounces as expired',
    allowed: 'an integer from 1 to 720',
    parse: p.integer(1, 720),
    fallback: () => 72,
  }),
  setting({
    key: 'smtpTimeoutSeconds',
    description: 'Seconds to wait for a remote server to connect, greet or answer',
    allowed: 'an integer from 1 to 600',
    parse: p.integer(1, 600),
    fallback: () => 60,
  }),
  setting({
    key: 'deliveryAttemptTimeoutSeconds',
    description: 'Seconds one delivery attempt may take in all, whatever the remote does',
    allowed: 'an integer from 1 to 3600',
    parse: p.integer(1, 3600),
    fallback: () => 300,
  }),
  setting({
    key: 'deliveryVerifyCertificates',
    description: "Refuse to deliver when a remote's STARTTLS certificate does not verify",
    allowed: 'true or false',
    parse: p.boolean,
    fallback: () => false,
  }),
  setting({
    key: 'deliveryCaFile',
    description: "PEM file of CAs to trust besides the well-known ones, for MTA-STS policy hosts and remotes' STARTTLS certificates",
    allowed: 'a file path',
    parse: p.nonEmpty,
    fallback: () => null,
    shownDefault: 'none: the well-known CAs only',
    format: (path) => path ?? '',
  }),
  setting({
    key: 'mtaStsPort',
    description: 'HTTPS port of MTA-STS policy hosts (443; another only for tests)',
    allowed: 'an integer from 1 to 65535',
    parse: p.integer(1, 65535),
    fallback: () => 443,
  }),
  setting({
    key: 'mailWorkers',
    description: 'Worker threads that build and DKIM-sign messages (0: on the main thread)',
    allowed: 'an integer from 0 to 64',
    parse: p.integer(0, 64),
    fallback: () => 1,
  }),
] as const
