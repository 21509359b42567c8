// Throughput and latency of POST /v1/track: starts the server on a temporary data directory, drives
// the endpoint over loopback with autocannon (64 connections, 50,000 distinct emails, 10 s) and
// prints one JSON line {rps, p50_ms, p99_ms, rss_mb, non2xx, errors} on stdout; diagnostics go to stderr.
// Each answer is sent only after its write is committed, so rps counts durable writes.
//   bun scripts/bench/track.ts [--database-url postgres://root@127.0.0.1:5432/postgres] [--processes N]
// --database-url: run on PostgreSQL, in a database made for the run on that server and dropped
// after it. --processes N: N servers on the one database, autocannon's connections spread evenly
// across them (64 rounded down to a multiple of N). The line also says dialect, processes,
// server_cpu_s (the servers' CPU during the load, together), cpu_ms_per_request (that divided by
// the requests), process_cpu_ms_per_request (each server's CPU divided by all the requests), and on
// PostgreSQL postgres_cpu_ms_per_request (the backends serving the run's database).
// Env: BENCH_DURATION (seconds, default 10); BENCH_SERVER_FLAGS (extra Bun flags for the server
// process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"); BENCH_LOG_LEVEL (the server's, default warn).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cliJson, log, main, peakRssMb, root } from './common.ts'
import { benchDatabase, benchOptions, type BenchDatabase } from './database.ts'
import { startServers, type Servers } from './servers.ts'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)
const options = benchOptions()
const connections = Math.floor(64 / options.processes) * options.processes

interface CannonResult {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number }
  non2xx: number
  errors: number
  timeouts: number
  statusCodeStats: Record<string, { count: number }>
}

// Runs in a separate Node.js process so the load generator shares no thread with anything else.
const loadGenerator = `
const autocannon = require('autocannon')
const { BENCH_URLS: urls, BENCH_KEY: key, BENCH_DURATION: duration, BENCH_CONNECTIONS: connections } = process.env
let n = 0
autocannon({
  url: urls.split(' ').map((url) => url + '/v1/track'), connections: Number(connections), duration: Number(duration), method: 'POST',
  headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
  requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(
    { email: 'user' + (n++ % 50000) + '@bench.example', event: 'signup', data: { plan: 'pro' } }) }) }],
}, (error, result) => {
  if (error) { console.error(error); process.exit(1) }
  process.stdout.write(JSON.stringify(result))
})
`

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
let database: BenchDatabase | undefined
let servers: Servers | undefined
try {
  database = await benchDatabase(options.databaseUrl)
  const settings = database.settings
  // The CLI's first command makes the schema, so the servers start on a migrated database.
  const { secretKey } = cliJson(dir, 'project', 'create', '--name', 'Bench', ...settings) as { secretKey: string }

  servers = await startServers(options.processes, (port) => [
    ...serverFlags, main, 'serve', '--data-dir', dir, ...settings, '--http-port', String(port), '--rate-limit-per-minute', '10000000',
    '--log-level', process.env.BENCH_LOG_LEVEL ?? 'warn', '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off',
  ])
  const { children, urls } = servers
  log(`${database.dialect}: server pids ${children.map((c) => c.pid).join(', ')} on ${urls.join(', ')}; ${duration} s of load over ${connections} connections`)

  const backends = await database.meterBackends()
  const cpuAtStart = servers.cpuSeconds()
  // Spawned, not run synchronously: this process goes on reading the servers' logs and metering
  // the backends meanwhile.
  const cannon = spawn('node', ['-e', loadGenerator], {
    cwd: root,
    env: { ...process.env, BENCH_URLS: urls.join(' '), BENCH_KEY: secretKey, BENCH_DURATION: String(duration), BENCH_CONNECTIONS: String(connections) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  cannon.stdout.setEncoding('utf8').on('data', (text: string) => (output += text))
  const status = await Promise.race([new Promise<number | null>((resolve) => cannon.once('close', resolve)), servers.exited])
  if (status !== 0) throw new Error(`load generator failed with status ${status}`)
  const result = JSON.parse(output) as CannonResult
  const serverCpu = servers.cpuSeconds().map((seconds, i) => seconds - cpuAtStart[i]!)
  const postgresCpu = await backends?.stop()

  // rss_mb is the largest server's peak resident set size (VmHWM), read just before they are stopped.
  const rssMb = Math.max(...children.map((child) => peakRssMb(child.pid!)))
  await servers.stop()
  servers = undefined

  if (result.non2xx > 0 || result.errors > 0) {
    log(`${result.non2xx} non-2xx responses, ${result.errors} errors (${result.timeouts} timeouts); status codes ${JSON.stringify(result.statusCodeStats)}`)
  }
  log(`${result.requests.total} requests in total`)
  const round = (value: number) => Math.round(value * 10) / 10
  const requests = result.requests.total
  const msPerRequest = (seconds: number) => Math.round((seconds * 1000 * 1000) / requests) / 1000
  const totalCpu = serverCpu.reduce((sum, seconds) => sum + seconds, 0)
  console.log(JSON.stringify({
    dialect: database.dialect,
    processes: options.processes,
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    rss_mb: round(rssMb),
    non2xx: result.non2xx,
    errors: result.errors,
    requests,
    server_cpu_s: round(totalCpu),
    cpu_ms_per_request: msPerRequest(totalCpu),
    ...(options.processes > 1 && { process_cpu_ms_per_request: serverCpu.map(msPerRequest) }),
    ...(postgresCpu != null && { postgres_cpu_s: round(postgresCpu), postgres_cpu_ms_per_request: msPerRequest(postgresCpu) }),
  }))
} finally {
  await servers?.stop()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
}
