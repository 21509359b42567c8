// A soak: the server under a steady mixed load for BENCH_MINUTES (default 30), its resident set
// sampled every minute. Starts a DNS server (in this process), a sink MX (its own process) and the
// server with the relay on and a verified sending domain; then, every second: 2 batches of 10
// emails over HTTP (about 10 KB of HTML each), 50 tracked events with the public key, 5 messages
// through the relay (STARTTLS, AUTH PLAIN, one pooled connection), 5 contacts created or updated
// and one page of the email list. Prints one JSON line on stdout:
//   {minutes, rss_mb_by_minute, rss_mb_at_5_min, rss_mb_max_after_5_min, growth_after_5_min_pct, ...}
// growth_after_5_min_pct: how much the resident set grew after the first 5 minutes, what the issue
// asks to keep under 10%: the median of the last five samples against the median of minutes 5 to
// 9 (a single sample may catch the collector's sawtooth at its top; a leak moves the median).
// max_growth_after_5_min_pct: the largest sample after minute 5 against the sample at minute 5.
// Diagnostics go to stderr.
//   bun scripts/bench/soak.ts
// Env: BENCH_MINUTES (default 30); BENCH_LOG_LEVEL (the server's, default warn).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import nodemailer from 'nodemailer'
import { publishRecords } from '../../test/helpers/domains.ts'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { apiClient, bun, cliJson, freePort, log, main, root, stop, verifiedDomain, waitForHealth } from './common.ts'

const minutes = Number(process.env.BENCH_MINUTES ?? 30)
const sender = 'sender.example.com'
const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024
const paragraph = '<p>' + 'soak test of a mail server under a steady mixed load '.repeat(20) + '</p>\n'
const html = (i: number) => `<html><body><h1>Soak ${i}</h1>\n${paragraph.repeat(10)}</body></html>`

const dir = mkdtempSync(join(tmpdir(), 'mailstead-soak-'))
const dns = await new FakeDns().start()
let server: ChildProcess | undefined
let sink: ChildProcess | undefined
try {
  sink = spawn(bun, ['scripts/bench/sink-mx.ts', '--dns', dns.address, '--domain', sender, '--expect', '0', '--verify-every', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  const sinkPort = await new Promise<number>((resolve) =>
    createInterface({ input: sink!.stdout! }).on('line', (text) => {
      const line = JSON.parse(text)
      if (line.listening !== undefined) resolve(line.listening)
    }),
  )
  for (let d = 0; d < 10; d++) dns.records(`d${d}.example.net`, { type: 'MX', exchange: 'mx.example.net', priority: 10 })
  dns.records('mx.example.net', { type: 'A', address: '127.0.0.1' })

  const project = cliJson(dir, 'project', 'create', '--name', 'Soak')
  cliJson(dir, 'project', 'set-send-rate', String(project.id), '1000')
  const port = await freePort()
  const relayPort = await freePort()
  const url = `http://127.0.0.1:${port}`
  const args = [
    main, 'serve', '--data-dir', dir, '--http-port', String(port), '--log-level', process.env.BENCH_LOG_LEVEL ?? 'warn',
    // The load comes from one address, well past what one visitor's public key may send.
    '--rate-limit-per-minute', '10000000', '--track-rate-limit-per-minute', '10000000', '--track-rate-limit-per-address-per-minute', '10000000',
    '--mx-port', 'off', '--relay-port', String(relayPort), '--relay-tls-port', 'off', '--dns-servers', dns.address, '--hostname', 'mx.mailstead.test',
    '--delivery-port', String(sinkPort), '--delivery-allow-private-targets', 'true',
  ]
  const child = spawn(bun, args, { stdio: ['ignore', 2, 2] })
  server = child
  await waitForHealth(url, () => child.exitCode !== null || child.signalCode !== null)
  const api = apiClient(url, project.secretKey)
  await verifiedDomain(api, (records) => publishRecords(dns, records), sender)
  log(`server pid ${child.pid} on ${url}, relay on ${relayPort}; ${minutes} minutes of mixed load`)

  const relay = nodemailer.createTransport({
    host: '127.0.0.1', port: relayPort, secure: false, requireTLS: true, pool: true, maxConnections: 1,
    auth: { user: 'key', pass: project.secretKey }, tls: { rejectUnauthorized: false },
  })
  const counts = { sent: 0, tracked: 0, relayed: 0, contacts: 0, reads: 0, errors: 0 }
  const failed = (what: string) => (error: unknown) => {
    counts.errors++
    if (counts.errors <= 5) log(`${what} failed: ${String(error).slice(0, 200)}`)
  }
  const post = (path: string, body: unknown, key = project.secretKey) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => {
      if (!r.ok) throw new Error(`${path}: ${r.status}`)
      return r.arrayBuffer()
    })
  let n = 0
  function second() {
    for (let b = 0; b < 2; b++) {
      const batch = Array.from({ length: 10 }, () => ({ from: `Soak <soak@${sender}>`, to: `user${n}@d${n % 10}.example.net`, subject: `Soak ${n}`, html: html(n++) }))
      post('/api/v1/emails/batch', batch).then(() => (counts.sent += 10), failed('send'))
    }
    for (let t = 0; t < 50; t++) post('/v1/track', { email: `visitor${(n * 50 + t) % 20000}@example.org`, event: 'page', data: { n } }, project.publicKey).then(() => counts.tracked++, failed('track'))
    for (let r = 0; r < 5; r++) {
      relay.sendMail({ from: `app@${sender}`, to: `relay${n + r}@d${r}.example.net`, subject: `Relayed ${n + r}`, text: 'Hello from the soak.\n'.repeat(40) }).then(() => counts.relayed++, failed('relay'))
    }
    for (let c = 0; c < 5; c++) post('/contacts', { email: `contact${(n + c) % 5000}@example.org`, data: { n, plan: n % 2 ? 'pro' : 'free' } }).then(() => counts.contacts++, failed('contact'))
    fetch(`${url}/api/v1/emails?limit=20`, { headers: { authorization: `Bearer ${project.secretKey}` } }).then((r) => r.arrayBuffer()).then(() => counts.reads++, failed('read'))
  }

  const samples: number[] = []
  const timer = setInterval(second, 1000)
  for (let minute = 1; minute <= minutes; minute++) {
    await Bun.sleep(60_000)
    samples.push(Math.round(rssMb(child.pid!) * 10) / 10)
    log(`minute ${minute}: RSS ${samples.at(-1)} MB; ${JSON.stringify(counts)}`)
  }
  clearInterval(timer)
  relay.close()
  const queue = cliJson(dir, 'queue', 'stats')
  const at5 = samples[Math.min(4, samples.length - 1)]!
  const after = samples.slice(5)
  const maxAfter = after.length > 0 ? Math.max(...after) : at5
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const early = median(samples.slice(4, 9))
  const late = median(samples.slice(-5))
  const percent = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10
  console.log(JSON.stringify({
    minutes,
    rss_mb_by_minute: samples,
    rss_mb_median_minutes_5_to_9: early,
    rss_mb_median_last_5: late,
    growth_after_5_min_pct: percent(early, late),
    rss_mb_at_5_min: at5,
    rss_mb_max_after_5_min: maxAfter,
    max_growth_after_5_min_pct: percent(at5, maxAfter),
    ...counts,
    delivered: queue.byState.delivered ?? 0,
    waiting: (queue.byState.queued ?? 0) + (queue.byState.deferred ?? 0) + (queue.byState.sending ?? 0),
  }))
} finally {
  await stop(server)
  await stop(sink)
  await dns.stop()
  rmSync(dir, { recursive: true, force: true })
}
