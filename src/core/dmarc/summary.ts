import { sql } from 'kysely'
import type { Db } from '../../db/schema.ts'
import { invalid } from '../../lib/errors.ts'
import { canonicalIp } from '../../lib/ip.ts'
import { getDomain } from '../domains/domains.service.ts'

/** The days a summary covers, inclusive, as YYYY-MM-DD (UTC). */
export interface DayRange {
  from: string
  to: string
}

/** Days in the default range, ending today. */
export const DEFAULT_DAYS = 30
/** The longest range one summary may cover. */
export const MAX_DAYS = 366
/** The most sources a summary lists, those with the most messages first. */
export const MAX_SOURCES = 1000

const DAY_MS = 86_400_000

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** A YYYY-MM-DD date as epoch milliseconds (UTC midnight), or undefined when it is not a real date. */
function parseDay(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!match) return undefined
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  return dayOf(ms) === text ? ms : undefined
}

/**
 * The range a query asks for: `from` and `to` are dates (YYYY-MM-DD, UTC), both included. Without
 * them, the last 30 days up to today; with one, the other follows (30 days back from `to`, or
 * from `from` to today). Wrong input is a 422 that names the field.
 */
export function dayRange(query: { from?: string | undefined; to?: string | undefined }, now: number): DayRange {
  const read = (field: 'from' | 'to') => {
    const text = query[field]
    if (text === undefined || text === '') return undefined
    const ms = parseDay(text)
    if (ms === undefined) throw invalid(field, `must be a date as YYYY-MM-DD, such as ${dayOf(now)}; got ${JSON.stringify(text.slice(0, 40))}`)
    return ms
  }
  const from = read('from')
  const given = read('to')
  const to = given ?? (from !== undefined ? Math.max(from, parseDay(dayOf(now))!) : parseDay(dayOf(now))!)
  const start = from ?? to - (DEFAULT_DAYS - 1) * DAY_MS
  if (start > to) throw invalid('from', `must not be after to (${dayOf(start)} is after ${dayOf(to)})`)
  const days = (to - start) / DAY_MS + 1
  if (days > MAX_DAYS) throw invalid('to', `the range may cover at most ${MAX_DAYS} days; ${dayOf(start)} to ${dayOf(to)} is ${days}`)
  return { from: dayOf(start), to: dayOf(to) }
}

/** What the reports say of one source IP on one day: message counts. */
export interface SourceDay {
  day: string
  sourceIp: string
  messages: number
  /** DMARC passed: DKIM or SPF aligned. */
  dmarcPass: number
  dkimAligned: number
  spfAligned: number
  /** DKIM and SPF results before alignment. */
  dkimPass: number
  spfPass: number
  quarantined: number
  rejected: number
}

type Counts = Omit<SourceDay, 'day' | 'sourceIp'>

export interface Reporter {
  orgName: string
  reports: number
  messages: number
}

export interface SourceSummary extends Counts {
  ip: string
  /** One of the addresses this server sends from. */
  thisServer: boolean
  firstDay: string
  lastDay: string
  /** Why this source deserves a look: it sends as the domain but is not this server. Null for this server. */
  flag: string | null
}

export interface DmarcSummary {
  domain: { id: number; name: string }
  from: string
  to: string
  /** The addresses judged to be this server's. */
  serverIps: string[]
  /** Said when the summary cannot tell this server's mail from others'. */
  warning: string | null
  reports: { count: number; reporters: Reporter[] }
  totals: Counts & { dmarcFail: number; fromThisServer: number; fromElsewhere: number }
  days: Array<Counts & { date: string }>
  /** Per source IP, the most messages first (at most MAX_SOURCES; `sourceCount` says how many there were). */
  sources: SourceSummary[]
  sourceCount: number
  /** Sources that send as the domain but are not this server. */
  flagged: number
}

const COUNTS = [
  'messages',
  'dmarcPass',
  'dkimAligned',
  'spfAligned',
  'dkimPass',
  'spfPass',
  'quarantined',
  'rejected',
] as const satisfies ReadonlyArray<keyof Counts>

const zero = (): Counts => Object.fromEntries(COUNTS.map((key) => [key, 0])) as Counts

function add(into: Counts, from: Counts) {
  for (const key of COUNTS) into[key] += from[key]
}

/** Why a source that is not this server is worth a look. */
function flagOf(source: Counts, domain: string): string {
  if (source.dmarcPass === source.messages) {
    return `not this server, yet its mail passes DMARC as ${domain}: another service that sends for the domain?`
  }
  if (source.dmarcPass === 0) {
    return `not this server, and its mail fails DMARC: someone else sends as ${domain} (spoofing, or a service not set up for the domain)`
  }
  return `not this server; ${source.messages - source.dmarcPass} of its ${source.messages} messages fail DMARC`
}

const UNKNOWN_ADDRESSES =
  "this server's public addresses are not known (none configured, none found on its interfaces): " +
  "set MAILSTEAD_PUBLIC_IPS so that its own mail is told from others'"

/** The summary of what reports say, from their rows per day and source IP. Pure. */
export function summarize(
  domain: { id: number; name: string },
  range: DayRange,
  rows: SourceDay[],
  reporters: Reporter[],
  serverIps: readonly string[],
): DmarcSummary {
  const ours = new Set(serverIps.flatMap((ip) => canonicalIp(ip) ?? []))
  const totals = { ...zero(), dmarcFail: 0, fromThisServer: 0, fromElsewhere: 0 }
  const days = new Map<string, Counts & { date: string }>()
  const sources = new Map<string, SourceSummary>()
  for (const row of rows) {
    const { day, sourceIp, ...counts } = row
    add(totals, counts)
    const date = days.get(day) ?? { date: day, ...zero() }
    add(date, counts)
    days.set(day, date)
    const thisServer = ours.has(sourceIp)
    const source = sources.get(sourceIp) ?? { ip: sourceIp, thisServer, ...zero(), firstDay: day, lastDay: day, flag: null }
    add(source, counts)
    if (day < source.firstDay) source.firstDay = day
    if (day > source.lastDay) source.lastDay = day
    sources.set(sourceIp, source)
    if (thisServer) totals.fromThisServer += counts.messages
    else totals.fromElsewhere += counts.messages
  }
  totals.dmarcFail = totals.messages - totals.dmarcPass
  const listed = [...sources.values()]
  for (const source of listed) if (!source.thisServer) source.flag = flagOf(source, domain.name)
  listed.sort((a, b) => b.messages - a.messages || (a.ip < b.ip ? -1 : 1))
  return {
    domain,
    from: range.from,
    to: range.to,
    serverIps: [...ours],
    warning: ours.size === 0 ? UNKNOWN_ADDRESSES : null,
    reports: { count: reporters.reduce((sum, r) => sum + r.reports, 0), reporters },
    totals,
    days: [...days.values()].sort((a, b) => (a.date < b.date ? -1 : 1)),
    sources: listed.slice(0, MAX_SOURCES),
    sourceCount: listed.length,
    flagged: listed.filter((s) => !s.thisServer).length,
  }
}

const sumWhen = (condition: ReturnType<typeof sql>) => sql<number>`coalesce(sum(case when ${condition} then count else 0 end), 0)`

/** The DMARC summary of a project's domain over `range`; 404 when the domain is not the project's. */
export async function dmarcSummary(db: Db, projectId: number, domainId: number, range: DayRange, serverIps: readonly string[]): Promise<DmarcSummary> {
  const domain = await getDomain(db, projectId, domainId)
  const rows = await db
    .selectFrom('dmarc_rows')
    .select([
      'day',
      'source_ip as sourceIp',
      sql<number>`sum(count)`.as('messages'),
      sumWhen(sql`dkim_aligned = 1 or spf_aligned = 1`).as('dmarcPass'),
      sumWhen(sql`dkim_aligned = 1`).as('dkimAligned'),
      sumWhen(sql`spf_aligned = 1`).as('spfAligned'),
      sumWhen(sql`dkim_result = 'pass'`).as('dkimPass'),
      sumWhen(sql`spf_result = 'pass'`).as('spfPass'),
      sumWhen(sql`disposition = 'quarantine'`).as('quarantined'),
      sumWhen(sql`disposition = 'reject'`).as('rejected'),
    ])
    .where('domain_id', '=', domain.id)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy(['day', 'source_ip'])
    .execute()
  const reporters = await db
    .selectFrom('dmarc_reports')
    .select([sql<string>`min(org_name)`.as('orgName'), sql<number>`count(*)`.as('reports'), sql<number>`sum(messages)`.as('messages')])
    .where('domain_id', '=', domain.id)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy('org_key')
    .orderBy(sql`sum(messages)`, 'desc')
    .orderBy('org_key')
    .execute()
  return summarize({ id: domain.id, name: domain.name }, range, rows, reporters, serverIps)
}
