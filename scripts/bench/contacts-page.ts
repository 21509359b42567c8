// The contacts table of a project with BENCH_CONTACTS contacts (a million by default), as the
// console's Contacts page asks for it. The contacts are seeded with direct SQL inserts into the
// server's SQLite database before it starts (one prepared statement, 50,000 rows a transaction):
// data {plan: pro for one in three, country: one of ten, age, vip: true for one in a thousand},
// made over a year. Then, through HTTP, each query BENCH_RUNS times after a warm-up, p50 and p99
// in ms:
//   first: the newest page of 50, with the total;   next: the page after it, by its cursor;
//   next_email: the same sorted by email;   filter_first / filter_next: data.plan equals "pro"
//   (a third of them), the first page with its total and the next;   rare_next: data.vip equals
//   true (one in a thousand), the next page;   segment_next: members of a segment of one data
//   filter (country "IS"), the next page.
// And the export: GET /contacts/export of every contact, streamed to /dev/null, its time, bytes,
// lines, and the server's resident set before, at its largest while it ran (sampled every 50 ms)
// and as each quarter of the rows came. Last, POST /contacts/bulk unsubscribes every subscribed
// contact of data.plan "pro" (about 317,000), its time.
// Prints one JSON line on stdout; diagnostics go to stderr.
//   bun scripts/bench/contacts-page.ts
// Env: BENCH_CONTACTS (default 1000000), BENCH_RUNS (20).
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cliJson, log, main, timeGets } from './common.ts'
import { startServers, type Servers } from './servers.ts'

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const contacts = env('BENCH_CONTACTS', 1_000_000)
const runs = env('BENCH_RUNS', 20)
const COUNTRIES = ['FR', 'DE', 'US', 'GB', 'ES', 'IT', 'NL', 'SE', 'PL', 'IS']
const YEAR = 365 * 86_400_000
const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024

/** Writes the contacts straight into the database file: what an import leaves, without its reactions. */
function seed(path: string, projectId: number) {
  const db = new Database(path)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = OFF')
  const insert = db.prepare('INSERT INTO contacts (id, project_id, email, email_key, subscribed, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, jsonb(?), ?, ?)')
  const now = Date.now()
  const started = performance.now()
  const chunk = db.transaction((from: number, to: number) => {
    for (let n = from; n < to; n++) {
      const email = `user${n}@example.net`
      const data = JSON.stringify({ plan: n % 3 === 0 ? 'pro' : 'free', country: COUNTRIES[n % 10], age: 18 + (n % 60), vip: n % 1000 === 0 })
      const at = now - YEAR + Math.floor((n / contacts) * YEAR)
      insert.run(Bun.randomUUIDv7(), projectId, email, email, n % 20 === 0 ? 0 : 1, data, at, at)
    }
  })
  for (let from = 0; from < contacts; from += 50_000) chunk(from, Math.min(contacts, from + 50_000))
  db.exec('ANALYZE')
  db.close()
  log(`${contacts} contacts seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

const condition = (field: string, value: unknown) => encodeURIComponent(JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field, operator: 'equals', value }] }] }))

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
let servers: Servers | undefined
try {
  const project = cliJson(dir, 'project', 'create', '--name', 'Bench') as { id: number; secretKey: string }
  seed(join(dir, 'mailstead.db'), project.id)
  servers = await startServers(1, (port) => [
    main, 'serve', '--data-dir', dir, '--http-port', String(port), '--rate-limit-per-minute', '10000000', '--log-level', 'warn',
    '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off', '--dns-servers', '127.0.0.1:9',
  ])
  const url = servers.urls[0]!
  const key = project.secretKey
  const pid = servers.children[0]!.pid!
  const get = async (path: string) => (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>

  /** Times GET /contacts with `query`: p50 and p99 in ms. */
  async function time(name: string, query: string) {
    const { p50, p99, answer } = await timeGets<{ contacts: unknown[]; total?: number }>(url, key, `/contacts?limit=50${query}`, runs, 3)
    log(`${name}: ${answer.contacts.length} on the page${answer.total === undefined ? '' : `, total ${answer.total}`}, p50 ${p50} ms, p99 ${p99} ms`)
    return { p50, p99 }
  }
  /** The query of the page after the first (the first itself when there is no second, with few contacts). */
  const after = async (query: string) => {
    const { cursor } = await get(`/contacts?limit=50${query}`)
    return cursor ? `${query}&cursor=${cursor}` : query
  }

  const segment = await (await fetch(`${url}/segments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Iceland', condition: JSON.parse(decodeURIComponent(condition('data.country', 'IS'))) }),
  })).json() as { id: string }
  const pro = `&condition=${condition('data.plan', 'pro')}`
  const results = {
    first: await time('first', ''),
    next: await time('next', await after('')),
    next_email: await time('next by email', await after('&sort=email&dir=asc')),
    filter_first: await time('plan=pro, first', pro),
    filter_next: await time('plan=pro, next', await after(pro)),
    rare_next: await time('vip=true, next', await after(`&condition=${condition('data.vip', true)}`)),
    segment_next: await time('segment, next', await after(`&condition=${encodeURIComponent(JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field: `segment.${segment.id}`, operator: 'memberOfSegment' }] }] }))}`)),
  }

  // The export: streamed to nowhere, the server's RSS sampled while it runs.
  const rssBefore = rssMb(pid)
  let rssPeak = rssBefore
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 50)
  const started = performance.now()
  const response = await fetch(`${url}/contacts/export`, { headers: { authorization: `Bearer ${key}` } })
  let bytes = 0
  let lines = 0
  // The server's RSS as each quarter of the rows has come: flat memory stays level after the first.
  const quarters: number[] = []
  for await (const chunk of response.body!) {
    bytes += chunk.byteLength
    for (const byte of chunk) if (byte === 10) lines++
    if (lines >= ((quarters.length + 1) * contacts) / 4) quarters.push(Math.round(rssMb(pid)))
  }
  const exportS = (performance.now() - started) / 1000
  clearInterval(sampler)
  log(`export: ${lines - 1} contacts, ${(bytes / 1e6).toFixed(1)} MB in ${exportS.toFixed(1)} s, server RSS ${rssBefore.toFixed(0)} MB before, at most ${rssPeak.toFixed(0)} MB`)
  // A bulk action on a filter: every subscribed "pro" contact unsubscribed, 1,000 a transaction.
  const bulkStarted = performance.now()
  const bulk = await (await fetch(`${url}/contacts/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'unsubscribe', filter: { subscribed: true, condition: JSON.parse(decodeURIComponent(condition('data.plan', 'pro'))) } }),
  })).json() as { changed: number; selected: number }
  const bulkS = (performance.now() - bulkStarted) / 1000
  log(`bulk unsubscribe: ${bulk.changed} of ${bulk.selected} in ${bulkS.toFixed(1)} s`)
  console.log(
    JSON.stringify({
      dialect: 'sqlite',
      contacts,
      ...Object.fromEntries(Object.entries(results).flatMap(([name, r]) => [[`${name}_p50_ms`, r.p50], [`${name}_p99_ms`, r.p99]])),
      export_s: Number(exportS.toFixed(1)),
      export_rows: lines - 1,
      export_mb: Number((bytes / 1e6).toFixed(1)),
      export_rss_before_mb: Math.round(rssBefore),
      export_rss_peak_mb: Math.round(rssPeak),
      export_rss_growth_mb: Math.round(rssPeak - rssBefore),
      export_rss_by_quarter_mb: quarters,
      bulk_unsubscribed: bulk.changed,
      bulk_s: Number(bulkS.toFixed(1)),
      runs,
    }),
  )
} finally {
  await servers?.stop()
  rmSync(dir, { recursive: true, force: true })
}
