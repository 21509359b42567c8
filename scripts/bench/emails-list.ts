// The email log of a busy project: GET /api/v1/emails over BENCH_EMAILS emails (a million by
// default) made over 30 days, as the console's Emails page asks for it. The emails are seeded
// directly (what the send path leaves in the emails table, without bodies: the list reads none it
// needs), one in a hundred bounced, one in a thousand with the subject "Invoice overdue", across
// BENCH_DOMAINS sending domains made through the API. Then, through HTTP, each query BENCH_RUNS
// times after a warm-up, p50 and p99 in ms:
//   first: the newest page of 20, with the count;   deep: page 500 (past 10,000 rows);
//   status: the bounced;   subject: "overdue" (any case);   recipient: one address;
//   domain: one sending domain;   range: one day.
// Prints one JSON line on stdout; diagnostics go to stderr.
//   bun scripts/bench/emails-list.ts [--database-url postgres://root@127.0.0.1:5432/postgres]
// Env: BENCH_EMAILS (default 1000000), BENCH_DOMAINS (5), BENCH_RUNS (20).
import { sql } from 'kysely'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../src/db/client.ts'
import type { EmailTable } from '../../src/db/schema.ts'
import { newId } from '../../src/lib/ids.ts'
import { apiClient, cliJson, log, main, timeGets } from './common.ts'
import { benchDatabase, benchOptions, type BenchDatabase } from './database.ts'
import { startServers, type Servers } from './servers.ts'

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const emails = env('BENCH_EMAILS', 1_000_000)
const domainCount = env('BENCH_DOMAINS', 5)
const runs = env('BENCH_RUNS', 20)
const options = benchOptions()
const DAY = 86_400_000
const ROWS_A_STATEMENT = 1000

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
let database: BenchDatabase | undefined
let servers: Servers | undefined
let direct: Database | undefined
try {
  database = await benchDatabase(options.databaseUrl)
  const settings = database.settings
  const project = cliJson(dir, 'project', 'create', '--name', 'Bench', ...settings) as { id: number; secretKey: string }
  servers = await startServers(1, (port) => [
    main, 'serve', '--data-dir', dir, ...settings, '--http-port', String(port), '--rate-limit-per-minute', '10000000', '--log-level', 'warn',
    '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off', '--dns-servers', '127.0.0.1:9',
  ])
  const url = servers.urls[0]!
  const api = apiClient(url, project.secretKey)
  const domains: Array<{ id: number; name: string }> = []
  for (let d = 0; d < domainCount; d++) domains.push(await api('POST', '/api/v1/domains', { name: `d${d}.example.com`, region: 'us-east-1' }))

  direct = await openDatabase(options.databaseUrl ? { dialect: 'postgres', url: settings[1]! } : { dialect: 'sqlite', path: join(dir, 'mailstead.db') })
  const now = Date.now()
  const started = performance.now()
  for (let i = 0; i < emails; i += ROWS_A_STATEMENT) {
    const rows: EmailTable[] = []
    for (let n = i; n < Math.min(emails, i + ROWS_A_STATEMENT); n++) {
      const domain = domains[n % domainCount]!
      const createdAt = now - 30 * DAY + Math.floor((n / emails) * 30 * DAY)
      rows.push({
        id: newId(),
        project_id: project.id,
        domain_id: domain.id,
        contact_id: null,
        from_address: `Shop <shop@${domain.name}>`,
        recipients: JSON.stringify({ to: [`user${n}@example.net`], cc: [], bcc: [], replyTo: [] }),
        subject: n % 1000 === 0 ? `Invoice overdue #${n}` : `Your order #${n}`,
        message_id: `<${n}@${domain.name}>`,
        dkim_header: null,
        status: n % 100 === 0 ? 'BOUNCED' : 'DELIVERED',
        scheduled_at: null,
        created_at: createdAt,
        updated_at: createdAt,
      })
    }
    await direct.db.insertInto('emails').values(rows).execute()
  }
  log(`${database.dialect}: ${emails} emails seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  if (database.dialect === 'postgres') await sql`ANALYZE emails`.execute(direct.db)

  /** Times one list query: p50 and p99 in ms, and what it counted. */
  async function time(query: string) {
    const { p50, p99, answer } = await timeGets<{ data: unknown[]; count: number }>(url, project.secretKey, `/api/v1/emails${query}`, runs, 3)
    log(`${query || '(no filter)'}: ${answer.count} counted, ${answer.data.length} on the page`)
    return { p50, p99, count: answer.count }
  }

  const day = new Date(now - 10 * DAY)
  const results = {
    first: await time('?limit=20'),
    deep: await time('?limit=20&page=500'),
    status: await time('?status=BOUNCED'),
    subject: await time('?subject=OVERDUE'),
    recipient: await time(`?recipient=user${Math.floor(emails / 2)}@example.net`),
    domain: await time(`?domainId=${domains[0]!.id}`),
    range: await time(`?startDate=${new Date(day.getTime() - DAY).toISOString()}&endDate=${day.toISOString()}`),
  }
  console.log(
    JSON.stringify({
      dialect: database.dialect,
      emails,
      ...Object.fromEntries(Object.entries(results).flatMap(([name, r]) => [[`${name}_p50_ms`, r.p50], [`${name}_p99_ms`, r.p99]])),
      runs,
    }),
  )
} finally {
  await direct?.close()
  await servers?.stop()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
}
