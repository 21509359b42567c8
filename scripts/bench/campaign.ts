// Marketing at a million contacts. Starts a DNS server (in this process) and the server on a
// temporary data directory with a verified sending domain, then measures, through the HTTP API:
//   import_s: POST /contacts/import of a generated CSV of BENCH_CONTACTS contacts (email,
//     subscribed, firstName, plan, age, country, signupDate) until the job is COMPLETED;
//   member_count_ms: GET /segments/{id} (its memberCount is counted live) of a three-filter
//     segment (subscribed equals true, data.plan equals "pro", data.age gt 30), median of 5;
//   preview_ms: POST /segments/preview of the same condition unsaved (the console builder's live
//     count: the count and the newest ten members), median of 5;
//   contacts_page_p50_ms / p99: GET /contacts?limit=100, page after page by cursor (200 pages);
//   materialise_s: POST /campaigns/{id}/send to everyone until every member of the audience is a
//     recipient row (campaigns.listed), and materialise_rss_mb, the server's largest resident set
//     while it did so (sampled every 50 ms);
//   handoff_s: then, with the server stopped, every recipient handed to the delivery queue (an
//     email, a delivery and an event each) by the sender's own handoff in this process, unpaced, and
//     handoff_rss_mb, this process's peak resident set.
// Prints one JSON line on stdout; diagnostics go to stderr.
//   bun scripts/bench/campaign.ts
// Env: BENCH_CONTACTS (default 1000000); BENCH_SERVER_FLAGS (extra Bun flags for the server).
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { handChunk } from '../../src/core/campaigns/handoff.ts'
import { openSqlite } from '../../src/db/sqlite.ts'
import { publishRecords } from '../../test/helpers/domains.ts'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { apiClient, cliJson, log, peakRssMb, startBenchServer, stop, verifiedDomain } from './common.ts'

const count = Number(process.env.BENCH_CONTACTS ?? 1_000_000)
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)
const sender = 'sender.example.com'
const PLANS = ['free', 'pro', 'team', 'enterprise']
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'IN', 'BR']

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!
const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024

/** The CSV, written in pieces so that a million rows never sit in memory as one string. */
async function writeCsv(path: string) {
  const writer = Bun.file(path).writer()
  writer.write('email,subscribed,firstName,plan,age,country,signupDate\n')
  const day = 86_400_000
  for (let n = 0; n < count; n++) {
    const signup = new Date(Date.UTC(2026, 0, 1) + (n % 1000) * day).toISOString()
    writer.write(`user${n}@example${n % 100}.com,${n % 20 === 0 ? 'false' : 'true'},User${n},${PLANS[n % 4]},${18 + (n % 60)},${COUNTRIES[n % 6]},${signup}\n`)
    if (n % 50_000 === 0) await writer.flush()
  }
  await writer.end()
}

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-campaign-'))
const dns = await new FakeDns().start()
let server: ChildProcess | undefined
try {
  const csv = join(dir, 'contacts.csv')
  await writeCsv(csv)
  log(`wrote ${count} contacts to ${csv}`)
  const project = cliJson(dir, 'project', 'create', '--name', 'Bench')
  const { child, url } = await startBenchServer(dir, dns.address, serverFlags)
  server = child
  const api = apiClient(url, project.secretKey)
  const domain = await verifiedDomain(api, (records) => publishRecords(dns, records), sender)

  let started = performance.now()
  const job = await api('POST', '/contacts/import', Bun.file(csv), { 'content-type': 'text/csv' })
  let imported = job
  while (imported.status === 'PENDING' || imported.status === 'RUNNING') {
    await Bun.sleep(200)
    imported = await api('GET', `/contacts/import/${job.id}`)
  }
  const importS = (performance.now() - started) / 1000
  if (imported.status !== 'COMPLETED' || imported.createdCount !== count) throw new Error(`import ended ${JSON.stringify(imported)}`)
  log(`imported ${count} in ${importS.toFixed(1)} s`)

  const condition = {
    logic: 'AND',
    groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }, { field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'data.age', operator: 'gt', value: 30 }] }],
  }
  const segment = await api('POST', '/segments', { name: 'Older pros', condition })
  const counts: number[] = []
  for (let i = 0; i < 5; i++) {
    started = performance.now()
    const got = await api('GET', `/segments/${segment.id}`)
    counts.push(performance.now() - started)
    if (got.memberCount !== segment.memberCount) throw new Error('memberCount changed')
  }
  log(`memberCount ${segment.memberCount}: ${counts.map((ms) => ms.toFixed(0)).join(', ')} ms`)
  const previews: number[] = []
  for (let i = 0; i < 5; i++) {
    started = performance.now()
    const got = await api('POST', '/segments/preview', { condition })
    previews.push(performance.now() - started)
    if (got.count !== segment.memberCount || got.contacts.length !== 10) throw new Error(`preview answered ${got.count} and ${got.contacts.length} contacts`)
  }
  log(`preview ${previews.map((ms) => ms.toFixed(0)).join(', ')} ms`)

  const pages: number[] = []
  let cursor: string | null = null
  for (let i = 0; i < 200; i++) {
    started = performance.now()
    const page: any = await api('GET', `/contacts?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
    pages.push(performance.now() - started)
    cursor = page.cursor
  }

  const campaign = (await api('POST', '/campaigns', { name: 'Everyone', subject: 'Hi {{data.firstName}}', body: '<p>Hello {{data.firstName ?? "there"}}</p>', from: `news@${sender}`, audienceType: 'ALL' })).data
  const database = openSqlite(join(dir, 'mailstead.db'))
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid!))), 50)
  started = performance.now()
  await api('POST', `/campaigns/${campaign.id}/send`, {})
  const listed = async () => (await database.db.selectFrom('campaigns').select(['listed', 'total']).where('id', '=', campaign.id).executeTakeFirstOrThrow())
  while ((await listed()).listed !== 1) await Bun.sleep(50)
  const materialiseS = (performance.now() - started) / 1000
  clearInterval(sampler)
  const recipients = (await listed()).total
  log(`materialised ${recipients} recipients in ${materialiseS.toFixed(1)} s, server RSS at most ${peak.toFixed(0)} MB`)
  await api('POST', `/campaigns/${campaign.id}/pause`)
  await stop(server)
  server = undefined

  started = performance.now()
  const from = { domainId: domain.id, domainName: sender, sandbox: false, maxAgeMs: 72 * 3_600_000 }
  let handed = 0
  for (let more = true; more; ) {
    const row = await database.db.selectFrom('campaigns').selectAll().where('id', '=', campaign.id).executeTakeFirstOrThrow()
    const result = await database.db.transaction().execute((trx) => handChunk(trx, row, from, 1000, Date.now()))
    handed += result.handed
    more = result.more
  }
  const handoffS = (performance.now() - started) / 1000
  log(`handed ${handed} to the queue in ${handoffS.toFixed(1)} s`)
  await database.close()

  console.log(
    JSON.stringify({
      contacts: count,
      import_s: Number(importS.toFixed(1)),
      member_count: segment.memberCount,
      member_count_ms: Math.round(median(counts)),
      preview_ms: Math.round(median(previews)),
      contacts_page_p50_ms: Number(median(pages).toFixed(1)),
      contacts_page_p99_ms: Number(percentile(pages, 0.99).toFixed(1)),
      recipients,
      materialise_s: Number(materialiseS.toFixed(1)),
      materialise_rss_mb: Math.round(peak),
      handed,
      handoff_s: Number(handoffS.toFixed(1)),
      handoff_rss_mb: Math.round(peakRssMb(process.pid)),
    }),
  )
} finally {
  await stop(server)
  await dns.stop()
  rmSync(dir, { recursive: true, force: true })
}
