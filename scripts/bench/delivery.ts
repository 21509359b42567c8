// Accepting and delivering mail: starts a DNS server (in this process), a sink MX (its own process,
// scripts/bench/sink-mx.ts) and the server on a temporary data directory with a verified sending
// domain; sends 20,000 emails of about 10 KB of HTML through POST /api/v1/emails/batch (100 per
// request, 4 requests in flight), to recipients at 10 domains whose MX is the sink; waits until the
// sink has received them all. Prints one JSON line on stdout:
//   {accepted_per_s, delivered_per_s, p99_accept_ms, rss_mb, ...}
// accepted_per_s: emails / (first request sent → last answer received).
// delivered_per_s: emails / (first request sent → the sink received the last one), so it counts
//   acceptance, queueing, signing and SMTP; delivery starts with the first accepted batch.
// p50/p99_accept_ms: latency of the batch requests. rss_mb: the server's peak resident set (VmHWM).
// server/sink/bench_cpu_s: CPU seconds (user+system, all threads) of each process from the first
//   request sent to the sink's last message. server_disk_write_mb: what the server wrote to storage
//   in its whole life (/proc/PID/io write_bytes), setup included.
// cpu_ms_per_message: server_cpu_s in ms / messages. disk_bytes_per_message: the server's
//   write_bytes / messages (setup included, as for server_disk_write_mb).
// Each message must arrive with an rsa-sha256 DKIM signature of the sending domain (counted by the
// sink), every 100th is verified in full, and the server's queue must end with all of them
// delivered; otherwise a warning is printed and the exit status is 1.
// Diagnostics, and the server's own log lines, go to stderr.
//   bun scripts/bench/delivery.ts [--database-url postgres://root@127.0.0.1:5432/postgres] [--processes N]
// --database-url: run on PostgreSQL, in a database made for the run on that server and dropped
// after it. --processes N: N servers on the one database (a SQLite data directory shared, or the
// PostgreSQL database), the batches sent to each in turn, the sink shared. The line then also says
// dialect and processes; server_cpu_s and cpu_ms_per_message are the servers' together,
// process_cpu_ms_per_message each one's CPU divided by all the messages, and on PostgreSQL
// postgres_cpu_ms_per_message the CPU of the backends serving the run's database (on SQLite that
// work is in the server's own time). rss_mb is the largest server's peak.
// Env: BENCH_MESSAGES (default 20000); BENCH_CONCURRENCY (batch requests in flight, default 4);
// BENCH_SHAPING=off (the sink site gets the same 50 connections, with no site rules, automation or
// warm-up: the figure with shaping off, beside the default's); BENCH_SERVE_ARGS (extra settings for serve, e.g. "--delivery-per-domain 20 --mail-workers 2");
// BENCH_SERVER_FLAGS (extra Bun flags for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof");
// BENCH_LOG_LEVEL (the server's, default warn); BENCH_STARTTLS=1 (the sink offers STARTTLS, so the
// server uses it); BENCH_TIMEOUT (seconds to wait for delivery, default 600); BENCH_DELIVER_AFTER
// (seconds: every email is sent with scheduledAt that long after the start, so that acceptance and
// delivery do not overlap and delivery_only_per_s, emails / (scheduledAt → the sink received the
// last one), is reported too; it must exceed the time acceptance takes).
import { spawn, type ChildProcess } from 'node:child_process'
import { createPublicKey } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { publishRecords } from '../../test/helpers/domains.ts'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { apiClient, shaping, sinkSiteArgs, bun, cliJson, cpuSeconds, diskWriteBytes, log, main, peakRssMb, perMessage, root, stop } from './common.ts'
import { benchDatabase, benchOptions, type BenchDatabase } from './database.ts'
import { startServers, type Servers } from './servers.ts'

const total = Number(process.env.BENCH_MESSAGES ?? 20_000)
const perBatch = 100
const inFlight = Number(process.env.BENCH_CONCURRENCY ?? 4)
const recipientDomains = 10
const sender = 'sender.example.com'
const serveArgs = (process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter(Boolean)
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)
const timeoutMs = Number(process.env.BENCH_TIMEOUT ?? 600) * 1000
const deliverAfterMs = Number(process.env.BENCH_DELIVER_AFTER ?? 0) * 1000
const options = benchOptions()

/** About 10 KB of HTML: the same paragraphs for every email, after a line of its own. */
const words = 'delivery mail queue server domain record message signature relay sender inbox bounce'.split(' ')
const paragraph = (n: number) => `<p>${Array.from({ length: 60 }, (_, i) => words[(n * 7 + i * 5) % words.length]).join(' ')}.</p>\n`
const filler = Array.from({ length: 23 }, (_, n) => paragraph(n)).join('')
let scheduledAt: Date | undefined
const emailOf = (i: number) => ({
  ...(scheduledAt && { scheduledAt: scheduledAt.toISOString() }),
  from: `Bench <bench@${sender}>`,
  to: `user${i}@d${i % recipientDomains}.example.net`,
  subject: `Benchmark message ${i}`,
  html: `<html><body><h1>Message ${i}</h1>\n${filler}</body></html>`,
})

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
const dns = await new FakeDns().start()
let database: BenchDatabase | undefined
let servers: Servers | undefined
let sink: ChildProcess | undefined
try {
  database = await benchDatabase(options.databaseUrl)
  const settings = database.settings
  // The sink: its lines on stdout are {listening}, then {received, at} and at the end {summary}.
  const sinkArgs = ['scripts/bench/sink-mx.ts', '--dns', dns.address, '--domain', sender, '--expect', String(total)]
  sink = spawn(bun, [...sinkArgs, ...(process.env.BENCH_STARTTLS === '1' ? ['--starttls'] : [])], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  const sinkLines: Array<(line: any) => void> = []
  let sinkReceived = 0
  createInterface({ input: sink.stdout! }).on('line', (text) => {
    const line = JSON.parse(text)
    if (line.received !== undefined) sinkReceived = line.received
    for (const listener of sinkLines) listener(line)
  })
  const sinkLine = (test: (line: any) => boolean) => new Promise<any>((resolve) => sinkLines.push((line) => test(line) && resolve(line)))
  const sinkPort: number = (await sinkLine((line) => line.listening !== undefined)).listening
  for (let d = 0; d < recipientDomains; d++) dns.records(`d${d}.example.net`, { type: 'MX', exchange: 'mx.example.net', priority: 10 })
  dns.records('mx.example.net', { type: 'A', address: '127.0.0.1' })

  // The CLI's first command makes the schema, so the servers start on a migrated database.
  const project = cliJson(dir, 'project', 'create', '--name', 'Bench', ...settings)
  cliJson(dir, 'project', 'set-send-rate', String(project.id), '100000', ...settings)

  servers = await startServers(options.processes, (port) => [
    ...serverFlags, main, 'serve', '--data-dir', dir, ...settings, '--http-port', String(port), '--rate-limit-per-minute', '10000000',
    '--log-level', process.env.BENCH_LOG_LEVEL ?? 'warn', '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off', '--dns-servers', dns.address, '--hostname', 'mx.mailstead.test',
    '--delivery-port', String(sinkPort), '--delivery-allow-private-targets', 'true', ...sinkSiteArgs(), ...serveArgs,
  ])
  const { children, urls, exited, logged } = servers
  log(`${database.dialect}: server pids ${children.map((c) => c.pid).join(', ')} on ${urls.join(', ')}, sink pid ${sink.pid} on port ${sinkPort}; serve ${serveArgs.join(' ') || '(defaults)'}`)

  const api = apiClient(urls[0]!, project.secretKey)
  const domain = await api('POST', '/api/v1/domains', { name: sender, region: 'us-east-1' })
  publishRecords(dns, domain.dnsRecords)
  const rsaRecord = domain.dnsRecords.find((r: any) => r.value.startsWith('v=DKIM1; k=rsa;')).value as string
  const rsaBits = createPublicKey({ key: Buffer.from(rsaRecord.split('p=')[1]!, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyDetails?.modulusLength
  await api('PUT', `/api/v1/domains/${domain.id}/verify`)
  for (let i = 0; (await api('GET', `/api/v1/domains/${domain.id}`)).status !== 'SUCCESS'; i++) {
    if (i === 100) throw new Error('the sending domain was not verified within 10 s')
    await Bun.sleep(100)
  }
  log(`${sender} verified (DKIM RSA key of ${rsaBits} bits); sending ${total} emails, ${inFlight} batches of ${perBatch} in flight`)

  const latencies: number[] = []
  let next = 0
  let batches = 0
  async function sendBatches() {
    while (next < total) {
      const first = next
      const count = Math.min(perBatch, total - first)
      next += count
      const url = urls[batches++ % urls.length]
      const body = JSON.stringify(Array.from({ length: count }, (_, k) => emailOf(first + k)))
      const sent = performance.now()
      const response = await fetch(`${url}/api/v1/emails/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
        body,
      })
      const answer: any = await response.json()
      latencies.push(performance.now() - sent)
      if (!response.ok || answer.data?.length !== count) throw new Error(`batch at ${first}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`)
    }
  }

  const backends = await database.meterBackends()
  const cpuAtStart = { servers: servers.cpuSeconds(), sink: cpuSeconds(sink.pid!), bench: process.cpuUsage() }
  const allReceived = sinkLine((line) => line.received === total)
  const startedAt = Date.now()
  if (deliverAfterMs > 0) scheduledAt = new Date(startedAt + deliverAfterMs)
  await Promise.race([Promise.all(Array.from({ length: inFlight }, sendBatches)), exited])
  const acceptedAt = Date.now()
  log(`accepted ${total} in ${((acceptedAt - startedAt) / 1000).toFixed(1)} s; the sink has ${sinkReceived}`)
  if (scheduledAt && acceptedAt > scheduledAt.getTime()) log('WARNING: acceptance outlasted BENCH_DELIVER_AFTER, delivery_only_per_s is meaningless')

  const progress = setInterval(() => log(`the sink has received ${sinkReceived}`), 5000)
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the sink received ${sinkReceived} of ${total} within ${timeoutMs / 1000} s`)), timeoutMs)
  })
  let deliveredAt: number
  try {
    deliveredAt = (await Promise.race([allReceived, exited, timeout])).at
  } finally {
    clearInterval(progress)
    clearTimeout(timer)
  }
  const benchCpu = process.cpuUsage(cpuAtStart.bench)
  const serverCpu = servers.cpuSeconds().map((seconds, i) => seconds - cpuAtStart.servers[i]!)
  const cpu = {
    server: serverCpu.reduce((sum, seconds) => sum + seconds, 0),
    sink: cpuSeconds(sink.pid!) - cpuAtStart.sink,
    bench: (benchCpu.user + benchCpu.system) / 1e6,
    postgres: await backends?.stop(),
  }

  // The sink counts a message before the server has recorded its delivery: wait for the queue.
  let queue: any
  for (let i = 0; i < 50; i++) {
    queue = cliJson(dir, 'queue', 'stats', ...settings)
    if ((queue.byState.delivered ?? 0) >= total) break
    await Bun.sleep(200)
  }
  const rssMb = Math.max(...children.map((child) => peakRssMb(child.pid!)))
  const writtenBytes = children.reduce((sum, child) => sum + diskWriteBytes(child.pid!), 0)
  await servers.stop()
  servers = undefined
  const summary = sinkLine((line) => line.summary !== undefined)
  await stop(sink)
  sink = undefined
  const { verified, ...received } = (await summary).summary
  log(`queue: ${JSON.stringify(queue.byState)}; sink: ${JSON.stringify(received)}; DKIM verified in full: ${JSON.stringify(verified)}`)
  if (Object.keys(logged).length > 0) log(`server log lines by level: ${JSON.stringify(logged)}`)
  const problems = [
    queue.byState.delivered !== total && `${queue.byState.delivered ?? 0} of ${total} deliveries are recorded as delivered`,
    received.rsaSigned !== total && `${received.rsaSigned} of ${total} messages carried an rsa-sha256 signature of ${sender}`,
    verified.fail > 0 && `${verified.fail} DKIM verifications failed`,
    received.duplicates > 0 && `${received.duplicates} messages were received twice`,
  ].filter(Boolean)
  for (const problem of problems) log(`WARNING: ${problem}`)
  if (problems.length > 0) process.exitCode = 1

  const sorted = latencies.sort((a, b) => a - b)
  const percentile = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!)
  const round = (value: number) => Math.round(value * 10) / 10
  const msPerMessage = (seconds: number) => Math.round((seconds * 1000 * 1000) / total) / 1000
  console.log(JSON.stringify({
    dialect: database.dialect,
    processes: options.processes,
    accepted_per_s: Math.round(total / ((acceptedAt - startedAt) / 1000)),
    shaping,
    delivered_per_s: Math.round(total / ((deliveredAt - startedAt) / 1000)),
    ...(scheduledAt && { delivery_only_per_s: Math.round(total / ((deliveredAt - scheduledAt.getTime()) / 1000)) }),
    p99_accept_ms: percentile(99),
    rss_mb: round(rssMb),
    p50_accept_ms: percentile(50),
    delivered: queue.byState.delivered ?? 0,
    rsa_signed: received.rsaSigned,
    dkim_verified: `${verified?.pass}/${(verified?.pass ?? 0) + (verified?.fail ?? 0)}`,
    mean_message_bytes: received.meanBytes,
    server_cpu_s: round(cpu.server),
    sink_cpu_s: round(cpu.sink),
    bench_cpu_s: round(cpu.bench),
    server_disk_write_mb: Math.round(writtenBytes / 1024 / 1024),
    ...perMessage(cpu.server, writtenBytes, total),
    ...(options.processes > 1 && { process_cpu_ms_per_message: serverCpu.map(msPerMessage) }),
    ...(cpu.postgres != null && { postgres_cpu_s: round(cpu.postgres), postgres_cpu_ms_per_message: msPerMessage(cpu.postgres) }),
  }))
} finally {
  await servers?.stop()
  await stop(sink)
  await dns.stop()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
}
