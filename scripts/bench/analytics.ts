// Analytics over a month of a busy project. The sending counters hold one row per project, sending
// domain and hour, whatever the number of events: a million events a day for 30 days is what the
// write path leaves there as 720 rows a domain. So the counters are seeded directly, as that
// traffic (and the year before it, the rows kept) leaves them: BENCH_PROJECTS projects (one
// measured, the others beside it in the table) with BENCH_DOMAINS sending domains each, made
// through the API, and a row for every domain and hour of BENCH_DAYS_KEPT days; the measured
// project's rows add up to BENCH_EVENTS_PER_DAY events a day (sent, delivered, deferred,
// bounced, complained, opened, clicked in the proportions of ordinary mail).
// Then, through HTTP, each query BENCH_RUNS times after a warm-up:
//   day_p50_ms / day_p99_ms: GET /api/v1/analytics/email-time-series?days=30 (30 day buckets);
//   hour_p50_ms / hour_p99_ms: the same by the hour (720 buckets);
//   domain_p50_ms: one domain's 30 days by the day; reputation_p50_ms: reputation-metrics.
// Prints one JSON line on stdout (with events_in_range, the events the 30 days sum, checked
// against what was seeded); diagnostics go to stderr.
//   bun scripts/bench/analytics.ts [--database-url postgres://root@127.0.0.1:5432/postgres]
// Env: BENCH_PROJECTS (default 10), BENCH_DOMAINS (10), BENCH_DAYS_KEPT (400),
// BENCH_EVENTS_PER_DAY (1000000), BENCH_RUNS (50).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hourOf } from '../../src/core/analytics/counters.ts'
import { openDatabase, type Database } from '../../src/db/client.ts'
import type { SendingCounterTable } from '../../src/db/schema.ts'
import { apiClient, cliJson, log, main, timeGets } from './common.ts'
import { benchDatabase, benchOptions, type BenchDatabase } from './database.ts'
import { startServers, type Servers } from './servers.ts'

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const projects = env('BENCH_PROJECTS', 10)
const domainsEach = env('BENCH_DOMAINS', 10)
const daysKept = env('BENCH_DAYS_KEPT', 400)
const eventsPerDay = env('BENCH_EVENTS_PER_DAY', 1_000_000)
const runs = env('BENCH_RUNS', 50)
const options = benchOptions()

/**
 * Shares of a day's events, by counter (they add up to 1): what a day of ordinary mail records.
 * hard_bounced is no event of its own but a part of the bounces.
 */
const SHARES = { sent: 0.3, delivered: 0.28, deferred: 0.02, bounced: 0.006, reported_bounced: 0.002, complained: 0.0005, opened: 0.25, clicked: 0.1415, hard_bounced: 0.004 } as const
const ROWS_A_STATEMENT = 500

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
let database: BenchDatabase | undefined
let servers: Servers | undefined
let direct: Database | undefined
try {
  database = await benchDatabase(options.databaseUrl)
  const settings = database.settings
  const keys = Array.from({ length: projects }, (_, i) => (cliJson(dir, 'project', 'create', '--name', `Bench ${i}`, ...settings) as { id: number; secretKey: string }))
  servers = await startServers(1, (port) => [
    main, 'serve', '--data-dir', dir, ...settings, '--http-port', String(port), '--rate-limit-per-minute', '10000000', '--log-level', 'warn',
    '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off', '--dns-servers', '127.0.0.1:9',
  ])
  const url = servers.urls[0]!
  const domains: Array<{ projectId: number; domainId: number }> = []
  for (const [p, project] of keys.entries()) {
    const api = apiClient(url, project.secretKey)
    for (let d = 0; d < domainsEach; d++) domains.push({ projectId: project.id, domainId: (await api('POST', '/api/v1/domains', { name: `d${d}.p${p}.example.com`, region: 'us-east-1' })).id })
  }
  log(`${database.dialect}: ${projects} projects with ${domainsEach} domains each; seeding ${daysKept} days of hourly counters`)

  direct = await openDatabase(options.databaseUrl ? { dialect: 'postgres', url: settings[1]! } : { dialect: 'sqlite', path: join(dir, 'mailstead.db') })
  const now = Date.now()
  const lastHour = hourOf(now)
  const perDomainHour = eventsPerDay / 24 / domainsEach
  let seeded = 0
  const started = performance.now()
  for (const { projectId, domainId } of domains) {
    const rows: SendingCounterTable[] = []
    for (let hour = lastHour - daysKept * 24 + 1; hour <= lastHour; hour++) {
      // The same volume every hour, jittered by a tenth so that sums are not round.
      const volume = perDomainHour * (0.9 + ((hour * 7919 + domainId * 104729) % 1000) / 5000)
      const row = { project_id: projectId, domain_id: domainId, hour } as SendingCounterTable
      for (const [column, share] of Object.entries(SHARES)) row[column as keyof typeof SHARES] = Math.round(volume * share)
      rows.push(row)
    }
    for (let i = 0; i < rows.length; i += ROWS_A_STATEMENT) await direct.db.insertInto('sending_counters').values(rows.slice(i, i + ROWS_A_STATEMENT)).execute()
    seeded += rows.length
  }
  log(`${seeded} counter rows in ${((performance.now() - started) / 1000).toFixed(1)} s`)

  const measured = keys[0]!
  const measuredDomain = domains[0]!.domainId
  const expected = await direct.db
    .selectFrom('sending_counters')
    .select((eb) => ['sent', 'delivered', 'deferred', 'bounced', 'reported_bounced', 'complained', 'opened', 'clicked'].map((c) => eb.fn.sum<number>(c as 'sent').as(c)))
    .where('project_id', '=', measured.id)
    .where('hour', '>=', Math.floor(lastHour / 24) * 24 - 29 * 24)
    .executeTakeFirstOrThrow()
  const expectedEvents = Object.values(expected).reduce((sum, n) => sum + Number(n), 0)

  const time = (path: string) => timeGets(url, measured.secretKey, path, runs, 5)

  const day = await time('/api/v1/analytics/email-time-series?days=30')
  const hour = await time('/api/v1/analytics/email-time-series?days=30&bucket=hour')
  const domain = await time(`/api/v1/analytics/email-time-series?days=30&domainId=${measuredDomain}`)
  const reputation = await time('/api/v1/analytics/reputation-metrics')
  const totals = day.answer.totalCounts as Record<string, number>
  const eventsInRange = Object.values(totals).reduce((sum, n) => sum + n, 0)
  if (eventsInRange !== expectedEvents) throw new Error(`the 30 days sum to ${eventsInRange} events, the rows seeded to ${expectedEvents}`)
  const hourTotal = Object.values(hour.answer.totalCounts as Record<string, number>).reduce((sum, n) => sum + n, 0)
  log(`30 days by the hour sum to ${hourTotal} events (the last 720 hours, against the 30 days' ${eventsInRange})`)

  console.log(JSON.stringify({
    dialect: database.dialect,
    counter_rows: seeded,
    projects,
    domains_per_project: domainsEach,
    events_per_day: eventsPerDay,
    events_in_range: eventsInRange,
    day_p50_ms: day.p50,
    day_p99_ms: day.p99,
    hour_p50_ms: hour.p50,
    hour_p99_ms: hour.p99,
    domain_p50_ms: domain.p50,
    domain_p99_ms: domain.p99,
    reputation_p50_ms: reputation.p50,
    reputation_p99_ms: reputation.p99,
    runs,
  }))
} finally {
  await direct?.close()
  await servers?.stop()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
}
