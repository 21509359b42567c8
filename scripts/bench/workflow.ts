// Workflows at volume. Starts a DNS server (in this process) and the server on a temporary data
// directory with a verified sending domain and an enabled EVENT workflow whose first step sends an
// email; then tracks BENCH_EVENTS events for as many contacts through POST /v1/track (64 requests
// in flight), and waits until every one of them has its email queued. Delivery is held back (the
// project's send rate is 1 a second) so that it does not share the CPU. Prints one JSON line:
//   track_s: the events accepted (first request → last answer); queued_s: first request → the
//   last email queued (counted in the database); queued_per_s; rss_mb: the server's peak RSS.
// Diagnostics go to stderr.
//   bun scripts/bench/workflow.ts
// Env: BENCH_EVENTS (default 100000); BENCH_SERVER_FLAGS (extra Bun flags for the server).
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqlite } from '../../src/db/sqlite.ts'
import { publishRecords } from '../../test/helpers/domains.ts'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { apiClient, cliJson, log, peakRssMb, startBenchServer, stop, verifiedDomain } from './common.ts'

const total = Number(process.env.BENCH_EVENTS ?? 100_000)
const inFlight = 64
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)
const sender = 'sender.example.com'

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-workflow-'))
const dns = await new FakeDns().start()
let server: ChildProcess | undefined
try {
  const project = cliJson(dir, 'project', 'create', '--name', 'Bench')
  cliJson(dir, 'project', 'set-send-rate', String(project.id), '1')
  const { child, url } = await startBenchServer(dir, dns.address, serverFlags)
  server = child
  const api = apiClient(url, project.secretKey)
  await verifiedDomain(api, (records) => publishRecords(dns, records), sender)
  await api('POST', '/workflows', {
    name: 'Receipt',
    enabled: true,
    triggerType: 'EVENT',
    triggerConfig: { eventName: 'order.completed' },
    steps: [{ id: 'receipt', type: 'SEND_EMAIL', config: { from: `Shop <shop@${sender}>`, subject: 'Order {{event.data.orderId}}', body: '<p>Thanks {{data.firstName ?? "there"}} for order {{event.data.orderId}}.</p>' } }],
  })

  const database = openSqlite(join(dir, 'mailstead.db'))
  const queued = async () => Number((await database.db.selectFrom('emails').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
  const started = performance.now()
  let next = 0
  const worker = async () => {
    while (next < total) {
      const n = next++
      await api('POST', '/v1/track', { email: `buyer${n}@d${n % 50}.example.net`, event: 'order.completed', data: { orderId: `O-${n}`, firstName: `Buyer${n}` } })
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const trackS = (performance.now() - started) / 1000
  log(`tracked ${total} events in ${trackS.toFixed(1)} s`)
  let count = 0
  while ((count = await queued()) < total) {
    if (performance.now() - started > 600_000) throw new Error(`only ${count} of ${total} queued after 10 minutes`)
    await Bun.sleep(200)
  }
  const queuedS = (performance.now() - started) / 1000
  const rss = peakRssMb(child.pid!)
  await database.close()
  console.log(JSON.stringify({ events: total, track_s: Number(trackS.toFixed(1)), queued_s: Number(queuedS.toFixed(1)), queued_per_s: Math.round(total / queuedS), rss_mb: Math.round(rss) }))
} finally {
  await stop(server)
  await dns.stop()
  rmSync(dir, { recursive: true, force: true })
}
