// What the benchmark scripts share: ports, the server's health, readings of a process, the CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

export const root = join(import.meta.dir, '..', '..')
export const main = join(root, 'src', 'main.ts')
export const bun = process.execPath
export const log = (message: string) => process.stderr.write(`bench: ${message}\n`)

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** Waits until the server answers /health (10 s at most); gives its answer. */
export async function waitForHealth(url: string, exited: () => boolean): Promise<any> {
  for (let i = 0; i < 200; i++) {
    if (exited()) throw new Error('server exited during startup')
    try {
      const response = await fetch(`${url}/health`)
      if (response.ok) return await response.json()
    } catch {}
    await Bun.sleep(50)
  }
  throw new Error('server did not become healthy within 10 s')
}

/** Runs a CLI command with --json on a data directory; gives its answer. */
export function cliJson(dir: string, ...args: string[]): any {
  const run = spawnSync(bun, [main, ...args, '--json', '--data-dir', dir], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`)
  return JSON.parse(run.stdout)
}

const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100

/** User plus system CPU seconds of a process, all its threads. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

/** Bytes the process has caused to be written to storage (/proc/PID/io write_bytes). */
export const diskWriteBytes = (pid: number) => Number(/^write_bytes: (\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN)

/**
 * What one message cost the server: CPU ms (user+system, all threads) and bytes written to
 * storage, each divided by the messages.
 */
export const perMessage = (serverCpuSeconds: number, writtenBytes: number, messages: number) => ({
  cpu_ms_per_message: Math.round((serverCpuSeconds * 1000 * 1000) / messages) / 1000,
  disk_bytes_per_message: Math.round(writtenBytes / messages),
})

/** The process's peak resident set size (VmHWM), in MB. */
export const peakRssMb = (pid: number) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024

/** SIGTERM, and wait for the exit. */
export async function stop(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exit = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exit
}

export type Api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<any>

/** Calls the API with a key: JSON (or a Blob, sent as is); anything but 2xx throws with the answer. */
export const apiClient =
  (url: string, key: string): Api =>
  async (method, path, body, headers = { 'content-type': 'application/json' }) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(body !== undefined && { body: body instanceof Blob ? body : JSON.stringify(body) }),
    })
    const answer: any = await response.json()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }

/** Adds a sending domain, publishes its records on the bench's DNS server and waits until it is verified. */
export async function verifiedDomain(api: Api, publish: (records: any[]) => void, name: string) {
  const domain = await api('POST', '/api/v1/domains', { name, region: 'us-east-1' })
  publish(domain.dnsRecords)
  await api('PUT', `/api/v1/domains/${domain.id}/verify`)
  for (let i = 0; (await api('GET', `/api/v1/domains/${domain.id}`)).status !== 'SUCCESS'; i++) {
    if (i === 200) throw new Error(`the sending domain ${name} was not verified within 10 s`)
    await Bun.sleep(50)
  }
  return domain
}

/**
 * `mailstead serve` on a data directory, DNS asked of `dnsAddress`, SMTP listeners off, its log
 * lines on stderr (stdout stays the result alone); resolves once /health answers.
 */
export async function startBenchServer(dir: string, dnsAddress: string, bunFlags: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const args = [
    ...bunFlags, main, 'serve', '--data-dir', dir, '--http-port', String(port), '--rate-limit-per-minute', '10000000', '--log-level', 'warn',
    '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off', '--dns-servers', dnsAddress, '--hostname', 'mx.mailstead.test', '--delivery-allow-private-targets', 'true',
  ]
  const child = spawn(bun, args, { stdio: ['ignore', 2, 2] })
  await waitForHealth(url, () => child.exitCode !== null)
  return { child, url }
}

/**
 * How the server shapes traffic to the sink, one site without limits of its own: 50 connections
 * (the effective concurrency of 10 domains at 5 each, as before sites), shaping on unless
 * BENCH_SHAPING=off (then the same connections, no site rules, automation or warm-up).
 */
export const shaping = process.env.BENCH_SHAPING === 'off' ? 'off' : 'on'
export const sinkSiteArgs = () => ['--delivery-per-domain', '50', '--delivery-shaping', shaping === 'on' ? 'true' : 'false']

/**
 * Times GET `path` with the key `runs` times after `warmup` unmeasured calls: p50 and p99 in ms,
 * and the last answer. A refusal ends the benchmark.
 */
export async function timeGets<T = any>(url: string, key: string, path: string, runs: number, warmup: number) {
  const get = async () => {
    const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
    return response.json() as Promise<T>
  }
  for (let i = 0; i < warmup; i++) await get()
  const took: number[] = []
  let answer: T | undefined
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    answer = await get()
    took.push(performance.now() - start)
  }
  took.sort((a, b) => a - b)
  const at = (p: number) => Number(took[Math.min(took.length - 1, Math.ceil(p * took.length) - 1)]!.toFixed(1))
  return { p50: at(0.5), p99: at(0.99), answer: answer as T }
}
