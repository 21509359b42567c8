// Accepting mail through the SMTP relay and delivering it: starts a DNS server (in this process), a
// sink MX (its own process, scripts/bench/sink-mx.ts) and the server on a temporary data directory
// with a verified sending domain and the relay on; a load generator (its own process, Node by
// default) opens 16 SMTP sessions to the relay, logs each in once (AUTH PLAIN with the secret key)
// and sends 20,000 messages of about 5 KB of plain text through them, each session one message
// after another over its one connection (MAIL, RCPT, DATA, repeated: as an application with a
// pooled transport does), one recipient each, at 10 domains whose MX is the sink; then waits until
// the sink has received them all. Prints one JSON line on stdout:
//   {accepted_per_s, delivered_per_s, p99_accept_ms, rss_mb, ...}
// accepted_per_s: messages / (the first MAIL FROM sent → the last 250 received).
// delivered_per_s: messages / (the first MAIL FROM sent → the sink received the last one), so it
//   counts acceptance, queueing, signing and SMTP; delivery starts with the first accepted message.
// p50/p99/max_accept_ms: per message, from send() (MAIL FROM) to the 250 after its DATA.
// rss_mb: the server's peak resident set (VmHWM).
// server/sink/client/bench_cpu_s: CPU seconds (user+system, all threads) of each process from the
//   first MAIL FROM to the sink's last message. server_disk_write_mb: what the server wrote to
//   storage in its whole life (/proc/PID/io write_bytes), setup included.
// cpu_ms_per_message: server_cpu_s in ms / messages. disk_bytes_per_message: the server's
//   write_bytes / messages (setup included, as for server_disk_write_mb).
// Every 250 must read "250 2.0.0 Queued as <id>" with ids all different, each message must arrive
// with an rsa-sha256 DKIM signature of the sending domain (counted by the sink), every 100th is
// verified in full, and the server's queue must end with all of them delivered; otherwise a
// warning is printed and the exit status is 1.
// Diagnostics, and the server's own log lines, go to stderr.
//   bun scripts/bench/relay.ts
// Env: BENCH_MESSAGES (default 20000); BENCH_SESSIONS (SMTP sessions, default 16); BENCH_TLS
// (starttls, the default: every session upgrades with STARTTLS, the server's self-signed
// certificate accepted, before AUTH; none: plain text, the server started with
// --relay-allow-insecure-auth true); BENCH_CLIENT (node, the default, or bun: the runtime of the
// load generator); BENCH_SERVE_ARGS (extra settings for serve, e.g. "--mail-workers 2");
// BENCH_SERVER_FLAGS (extra Bun flags for the server process, e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof"); BENCH_LOG_LEVEL (the server's, default warn); BENCH_STARTTLS=1 (the
// sink offers STARTTLS, so the server uses it when delivering); BENCH_TIMEOUT (seconds to wait for
// delivery, default 600); BENCH_ACCEPT_ONLY=1 (for profiling acceptance alone: the sink is
// stopped (SIGSTOP) while messages are accepted and the server runs with --delivery-per-domain 100,
// so that the delivery loop fills its 1,000-delivery buffer and 100 attempts wait for the sink's
// greeting, and claims nothing more; once all are accepted the sink is resumed and the server
// stopped at once: only the acceptance figures are reported, the queue must hold every message.
// A smaller per-domain limit would leave the buffer short of full, and the loop would query the
// queue again for every message accepted).
import { spawn, type ChildProcess } from 'node:child_process'
import { createPublicKey } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { publishRecords } from '../../test/helpers/domains.ts'
import { FakeDns } from '../../test/helpers/fake-dns.ts'
import { apiClient, shaping, sinkSiteArgs, bun, cliJson, cpuSeconds, diskWriteBytes, freePort, log, main, peakRssMb, perMessage, root, stop, waitForHealth } from './common.ts'

const total = Number(process.env.BENCH_MESSAGES ?? 20_000)
const sessions = Number(process.env.BENCH_SESSIONS ?? 16)
const tlsMode = process.env.BENCH_TLS ?? 'starttls'
const clientRuntime = process.env.BENCH_CLIENT ?? 'node'
const acceptOnly = process.env.BENCH_ACCEPT_ONLY === '1'
const recipientDomains = 10
const sender = 'sender.example.com'
const serveArgs = (process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter(Boolean)
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)
const timeoutMs = Number(process.env.BENCH_TIMEOUT ?? 600) * 1000
if (tlsMode !== 'starttls' && tlsMode !== 'none') throw new Error('BENCH_TLS is starttls or none')
if (clientRuntime !== 'node' && clientRuntime !== 'bun') throw new Error('BENCH_CLIENT is node or bun')








/**
 * The load generator, run by Node or Bun as an ES module of its own (so that its CPU is its own
 * process's). Settings in the environment (RELAY_CLIENT, JSON). On stdout, JSON lines: {ready} once
 * every session is connected and logged in; after "go" on stdin, {done: {...}} once every message
 * has its answer. nodemailer's SMTPConnection, one per session, each sending the next message
 * when its previous one is answered.
 */
const clientSource = String.raw`
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
const c = JSON.parse(process.env.RELAY_CLIENT)
const SMTPConnection = createRequire(c.root + '/package.json')('nodemailer/lib/smtp-connection')
const say = (line) => process.stdout.write(JSON.stringify(line) + '\n')

// About 5 KB of plain text: the same lines for every message, after a line of its own.
const words = 'delivery mail queue server domain record message signature relay sender inbox bounce invoice account order'.split(' ')
const lineOf = (n) => Array.from({ length: 11 }, (_, i) => words[(n * 7 + i * 5) % words.length]).join(' ')
const body = Array.from({ length: 60 }, (_, n) => lineOf(n) + (n % 8 === 7 ? '.\r\n' : '')).join('\r\n') + '\r\n'
const date = () => new Date().toUTCString().replace('GMT', '+0000')
const messageOf = (i) =>
  [
    'From: "Bench App" <' + c.from + '>',
    'To: <user' + i + '@d' + (i % c.domains) + '.example.net>',
    'Subject: Benchmark message ' + i,
    'Date: ' + date(),
    'Message-ID: <bench.' + c.run + '.' + i + '@' + c.sender + '>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    'Hello user ' + i + ', this is message ' + i + ' of the relay benchmark.',
    '',
    body,
  ].join('\r\n')

function open() {
  return new Promise((resolve, reject) => {
    const connection = new SMTPConnection({
      host: c.host, port: c.port, secure: false, name: 'bench-client.example.com',
      requireTLS: c.tls === 'starttls', ignoreTLS: c.tls === 'none', tls: { rejectUnauthorized: false },
      connectionTimeout: 30000, greetingTimeout: 30000, socketTimeout: 300000,
    })
    connection.once('error', reject)
    connection.connect(() =>
      connection.login({ user: 'mailstead', pass: c.key, method: 'PLAIN' }, (error) => (error ? reject(error) : resolve(connection))),
    )
  })
}

const connections = await Promise.all(Array.from({ length: c.sessions }, open))
say({ ready: { secure: connections.filter((x) => x.secure).length, bytes: Buffer.byteLength(messageOf(0)) } })
await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve))

const latencies = new Float64Array(c.total)
const ids = new Set()
const errors = []
let next = 0
let last = 0
const first = Date.now()
async function session(connection) {
  while (next < c.total) {
    const i = next++
    const message = messageOf(i)
    const sent = performance.now()
    const answer = await new Promise((resolve) =>
      connection.send({ from: c.from, to: ['user' + i + '@d' + (i % c.domains) + '.example.net'] }, message, (error, info) => resolve(error ?? info)),
    )
    latencies[i] = performance.now() - sent
    last = Date.now()
    const id = answer instanceof Error ? undefined : /^250 2\.0\.0 Queued as (\S+)/.exec(answer.response ?? '')?.[1]
    if (id) ids.add(id)
    else {
      errors.push(String(answer instanceof Error ? answer.responseCode + ' ' + answer.message : answer.response))
      if (answer instanceof Error && !answer.responseCode) return // the connection is gone
      await new Promise((resolve) => connection.reset(resolve))
    }
  }
}
await Promise.all(connections.map(session))
const sorted = Array.from(latencies).sort((a, b) => a - b)
const percentile = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
say({ done: { first, last, p50: percentile(50), p99: percentile(99), max: sorted.at(-1), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, ids: ids.size, errors: errors.length, someErrors: errors.slice(0, 5) } })
for (const connection of connections) connection.quit()
setTimeout(() => process.exit(0), 1000).unref()
`

const dir = mkdtempSync(join(tmpdir(), 'mailstead-bench-'))
const dns = await new FakeDns().start()
let server: ChildProcess | undefined
let sink: ChildProcess | undefined
let client: ChildProcess | undefined
try {
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

  const project = cliJson(dir, 'project', 'create', '--name', 'Bench')
  cliJson(dir, 'project', 'set-send-rate', String(project.id), '100000')

  const port = await freePort()
  const relayPort = await freePort()
  const url = `http://127.0.0.1:${port}`
  const args = [
    ...serverFlags, main, 'serve', '--data-dir', dir, '--http-port', String(port), '--rate-limit-per-minute', '10000000',
    '--log-level', process.env.BENCH_LOG_LEVEL ?? 'warn', '--mx-port', 'off', '--relay-port', String(relayPort), '--relay-tls-port', 'off',
    ...(tlsMode === 'none' ? ['--relay-allow-insecure-auth', 'true'] : []),
    '--dns-servers', dns.address, '--hostname', 'mx.mailstead.test', '--delivery-port', String(sinkPort), '--delivery-allow-private-targets', 'true',
    ...sinkSiteArgs(), ...(acceptOnly ? ['--delivery-per-domain', '100'] : []), ...serveArgs,
  ]
  // The Bun binary is spawned directly, so server.pid is the server process itself. Its log lines
  // (JSON on stdout) are passed on to stderr and counted by level.
  const child = spawn(bun, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  server = child
  const logged: Record<string, number> = {}
  createInterface({ input: child.stdout! }).on('line', (line) => {
    process.stderr.write(`server: ${line}\n`)
    const level = /"level":"(\w+)"/.exec(line)?.[1] ?? 'other'
    logged[level] = (logged[level] ?? 0) + 1
  })
  const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal})`))))
  exited.catch(() => {})
  let health = await waitForHealth(url, () => child.exitCode !== null || child.signalCode !== null)
  for (let i = 0; health.listeners?.relay?.state !== 'up'; i++) {
    if (i === 100) throw new Error(`the relay is not up: ${JSON.stringify(health.listeners?.relay)}`)
    await Bun.sleep(100)
    health = await waitForHealth(url, () => child.exitCode !== null || child.signalCode !== null)
  }
  log(`server pid ${child.pid} on ${url}, relay on port ${relayPort}, sink pid ${sink.pid} on port ${sinkPort}; serve ${serveArgs.join(' ') || '(defaults)'}`)

  const api = apiClient(url, project.secretKey)
  const domain = await api('POST', '/api/v1/domains', { name: sender, region: 'us-east-1' })
  publishRecords(dns, domain.dnsRecords)
  const rsaRecord = domain.dnsRecords.find((r: any) => r.value.startsWith('v=DKIM1; k=rsa;')).value as string
  const rsaBits = createPublicKey({ key: Buffer.from(rsaRecord.split('p=')[1]!, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyDetails?.modulusLength
  await api('PUT', `/api/v1/domains/${domain.id}/verify`)
  for (let i = 0; (await api('GET', `/api/v1/domains/${domain.id}`)).status !== 'SUCCESS'; i++) {
    if (i === 100) throw new Error('the sending domain was not verified within 10 s')
    await Bun.sleep(100)
  }

  // The load generator: connected and logged in before the clock starts.
  const clientConfig = {
    root, host: '127.0.0.1', port: relayPort, key: project.secretKey, from: `app@${sender}`, sender, domains: recipientDomains,
    total, sessions, tls: tlsMode, run: Date.now().toString(36),
  }
  const clientArgs = clientRuntime === 'node' ? ['--input-type=module', '-e', clientSource] : ['-e', clientSource]
  client = spawn(clientRuntime === 'node' ? 'node' : bun, clientArgs, {
    cwd: root,
    env: { ...process.env, RELAY_CLIENT: JSON.stringify(clientConfig) },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const clientChild = client
  const clientLines: Array<(line: any) => void> = []
  createInterface({ input: clientChild.stdout! }).on('line', (text) => {
    const line = JSON.parse(text)
    for (const listener of clientLines) listener(line)
  })
  const clientLine = (key: string) => new Promise<any>((resolve) => clientLines.push((line) => line[key] !== undefined && resolve(line[key])))
  const clientExited = new Promise<never>((_, reject) =>
    clientChild.once('exit', (code, signal) => reject(new Error(`the load generator exited (${code ?? signal}) before it was done`))),
  )
  clientExited.catch(() => {})
  const ready = await Promise.race([clientLine('ready'), clientExited, exited])
  if (tlsMode === 'starttls' && ready.secure !== sessions) throw new Error(`only ${ready.secure} of ${sessions} sessions are on TLS`)
  log(
    `${sender} verified (DKIM RSA key of ${rsaBits} bits); ${sessions} sessions (${clientRuntime}, ${tlsMode === 'starttls' ? 'STARTTLS' : 'plain text'}) ` +
      `logged in; sending ${total} messages of ${ready.bytes} bytes${acceptOnly ? ', the sink stopped' : ''}`,
  )

  const cpuAtStart = { server: cpuSeconds(child.pid!), sink: cpuSeconds(sink.pid!), client: cpuSeconds(clientChild.pid!), bench: process.cpuUsage() }
  const allReceived = sinkLine((line) => line.received === total)
  const done = clientLine('done')
  if (acceptOnly) sink.kill('SIGSTOP')
  clientChild.stdin!.write('go\n')
  const result = await Promise.race([done, clientExited, exited])
  if (acceptOnly) sink.kill('SIGCONT')
  const cpuAtAccepted = { server: cpuSeconds(child.pid!), client: cpuSeconds(clientChild.pid!) }
  const startedAt: number = result.first
  const acceptedAt: number = result.last
  log(`accepted ${result.ids} in ${((acceptedAt - startedAt) / 1000).toFixed(1)} s (${result.errors} refused); the sink has ${sinkReceived}`)
  for (const error of result.someErrors) log(`refused: ${error}`)

  let deliveredAt: number | undefined
  if (!acceptOnly) {
    const progress = setInterval(() => log(`the sink has received ${sinkReceived}`), 5000)
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the sink received ${sinkReceived} of ${total} within ${timeoutMs / 1000} s`)), timeoutMs)
    })
    try {
      deliveredAt = (await Promise.race([allReceived, exited, timeout])).at
    } finally {
      clearInterval(progress)
      clearTimeout(timer)
    }
  }
  const benchCpu = process.cpuUsage(cpuAtStart.bench)
  const cpu = {
    server: cpuSeconds(child.pid!) - cpuAtStart.server,
    sink: cpuSeconds(sink.pid!) - cpuAtStart.sink,
    client: (clientChild.exitCode === null ? cpuSeconds(clientChild.pid!) : cpuAtAccepted.client) - cpuAtStart.client,
    bench: (benchCpu.user + benchCpu.system) / 1e6,
  }

  // The sink counts a message before the server has recorded its delivery: wait for the queue.
  let queue: any
  for (let i = 0; i < 50 && !acceptOnly; i++) {
    queue = cliJson(dir, 'queue', 'stats')
    if ((queue.byState.delivered ?? 0) >= total) break
    await Bun.sleep(200)
  }
  const rssMb = peakRssMb(child.pid!)
  const writtenBytes = diskWriteBytes(child.pid!)
  await stop(child)
  server = undefined
  await stop(clientChild)
  client = undefined
  if (acceptOnly) queue = cliJson(dir, 'queue', 'stats') // after the server stopped: every write is in
  const summary = sinkLine((line) => line.summary !== undefined)
  await stop(sink)
  sink = undefined
  const { verified, ...received } = (await summary).summary
  log(`queue: ${JSON.stringify(queue.byState)}; sink: ${JSON.stringify(received)}; DKIM verified in full: ${JSON.stringify(verified)}`)
  if (Object.keys(logged).length > 0) log(`server log lines by level: ${JSON.stringify(logged)}`)
  const inQueue = Object.values(queue.byState as Record<string, number>).reduce((a, b) => a + b, 0)
  const problems = [
    result.errors > 0 && `${result.errors} messages were refused`,
    result.ids !== total && `${result.ids} different ids in the 250s for ${total} messages`,
    acceptOnly && inQueue !== total && `the queue holds ${inQueue} deliveries for ${total} messages`,
    !acceptOnly && queue.byState.delivered !== total && `${queue.byState.delivered ?? 0} of ${total} deliveries are recorded as delivered`,
    !acceptOnly && received.received !== total && `the sink received ${received.received} of ${total} messages`,
    received.rsaSigned !== received.received && `${received.rsaSigned} of ${received.received} messages carried an rsa-sha256 signature of ${sender}`,
    verified.fail > 0 && `${verified.fail} DKIM verifications failed`,
    received.duplicates > 0 && `${received.duplicates} messages were received twice`,
  ].filter(Boolean)
  for (const problem of problems) log(`WARNING: ${problem}`)
  if (problems.length > 0) process.exitCode = 1

  const round = (value: number) => Math.round(value * 10) / 10
  console.log(JSON.stringify({
    accepted_per_s: Math.round(total / ((acceptedAt - startedAt) / 1000)),
    shaping,
    delivered_per_s: deliveredAt === undefined ? null : Math.round(total / ((deliveredAt - startedAt) / 1000)),
    p99_accept_ms: round(result.p99),
    rss_mb: round(rssMb),
    p50_accept_ms: round(result.p50),
    max_accept_ms: round(result.max),
    tls: tlsMode,
    client: clientRuntime,
    ...(acceptOnly && { accept_only: true }),
    sessions,
    delivered: queue.byState.delivered ?? 0,
    sink_received: received.received,
    rsa_signed: received.rsaSigned,
    dkim_verified: `${verified?.pass}/${(verified?.pass ?? 0) + (verified?.fail ?? 0)}`,
    mean_message_bytes: received.meanBytes || ready.bytes,
    accept_server_cpu_s: round(cpuAtAccepted.server - cpuAtStart.server),
    accept_client_cpu_s: round(cpuAtAccepted.client - cpuAtStart.client),
    server_cpu_s: round(cpu.server),
    sink_cpu_s: round(cpu.sink),
    client_cpu_s: round(cpu.client),
    bench_cpu_s: round(cpu.bench),
    server_disk_write_mb: Math.round(writtenBytes / 1024 / 1024),
    ...perMessage(cpu.server, writtenBytes, total),
  }))
} finally {
  await stop(client)
  await stop(server)
  if (sink && sink.exitCode === null && sink.signalCode === null) sink.kill('SIGCONT')
  await stop(sink)
  await dns.stop()
  rmSync(dir, { recursive: true, force: true })
}
