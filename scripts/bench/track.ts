// Throughput and latency of POST /v1/track: starts the server on a temporary data directory, drives
// the endpoint over loopback with autocannon (64 connections, 50,000 distinct emails, 10 s) and
// prints one JSON line {rps, p50_ms, p99_ms, rss_mb, non2xx, errors} on stdout; diagnostics go to stderr.
// Each answer is sent only after its write is committed, so rps counts durable writes.
//   bun scripts/bench/track.ts
// Env: BENCH_DURATION (seconds, default 10); BENCH_SERVER_FLAGS (extra Bun flags for the server
// process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"); BENCH_LOG_LEVEL (the server's, default warn).
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bun, freePort, log, main, root, waitForHealth } from './common.ts'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)

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
const { BENCH_URL: url, BENCH_KEY: key, BENCH_DURATION: duration } = process.env
let n = 0
autocannon({
  url: url + '/v1/track', connections: 64, duration: Number(duration), method: 'POST',
  headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
  requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(
    { email: 'user' + (n++ % 50000) + '@bench.example', event: 'signup', data: { plan: 'pro' } }) }) }],
}, (error, result) => {
  if (error) { console.error(error); process.exit(1) }
  process.stdout.write(JSON.stringify(result))
})
`



const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
let server: ReturnType<typeof spawn> | undefined
try {
  const created = spawnSync(bun, [main, 'project', 'create', '--name', 'Bench', '--json', '--data-dir', dir], { encoding: 'utf8' })
  if (created.status !== 0) throw new Error(`project create failed: ${created.stderr}`)
  const { secretKey } = JSON.parse(created.stdout) as { secretKey: string }

  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // The Bun binary is spawned directly, so server.pid is the server process itself.
  const args = [...serverFlags, main, 'serve', '--data-dir', dir, '--http-port', String(port), '--rate-limit-per-minute', '10000000', '--log-level', process.env.BENCH_LOG_LEVEL ?? 'warn', '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off']
  const child = spawn(bun, args, { stdio: ['ignore', 'inherit', 'inherit'] })
  server = child
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitForHealth(url, () => child.exitCode !== null || child.signalCode !== null)
  log(`server pid ${child.pid} on ${url}; ${duration} s of load`)

  const cannon = spawnSync('node', ['-e', loadGenerator], {
    cwd: root,
    env: { ...process.env, BENCH_URL: url, BENCH_KEY: secretKey, BENCH_DURATION: String(duration) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (cannon.status !== 0) throw new Error(`load generator failed with status ${cannon.status}`)
  const result = JSON.parse(cannon.stdout) as CannonResult

  // rss_mb is the server's peak resident set size (VmHWM), read just before it is stopped.
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
  const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN)
  child.kill('SIGTERM')
  await exit
  server = undefined

  if (result.non2xx > 0 || result.errors > 0) {
    log(`${result.non2xx} non-2xx responses, ${result.errors} errors (${result.timeouts} timeouts); status codes ${JSON.stringify(result.statusCodeStats)}`)
  }
  log(`${result.requests.total} requests in total`)
  const round = (value: number) => Math.round(value * 10) / 10
  console.log(JSON.stringify({
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    rss_mb: round(peakKb / 1024),
    non2xx: result.non2xx,
    errors: result.errors,
  }))
} finally {
  const child = server
  if (child && child.exitCode === null && child.signalCode === null) {
    const exit = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exit
  }
  rmSync(dir, { recursive: true, force: true })
}
