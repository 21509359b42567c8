import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, SOURCE_COMMAND } from './child.ts'
import { mailsteadChild } from './cli-child.ts'
import { readRows, type DataPlace } from './direct-db.ts'
import { publishRecords } from './domains.ts'
import { FakeDns } from './fake-dns.ts'
import { FakeMx, type FakeMxOptions } from './fake-mx.ts'
import { freshPostgres, onPostgres, type TestDatabase } from './postgres.ts'
import { until } from './until.ts'

// Cluster tests have long imported the wait from here.
export { until }

/**
 * Why the cluster tests are skipped on SQLite: several processes share one database only on
 * PostgreSQL. `npm run test:postgres` runs them.
 */
export const CLUSTER_SKIPPED = !onPostgres
export const ON_POSTGRES_ONLY = '(PostgreSQL only: MAILSTEAD_TEST_DATABASE=postgres; several processes share no SQLite file)'

/** The recipient domains whose MX is the cluster's fake MX. */
export const RECIPIENT_DOMAINS = ['example.net', 'example.org', 'example.info']

export interface ClusterNode {
  /** Its place in `cluster.nodes`. */
  index: number
  /** Its HTTP port, the same across restarts. */
  port: number
  /** Its SMTP listeners' ports: the MX and the relay. */
  mxPort: number
  relayPort: number
  /** Its own data directory, as on a machine of its own. */
  dir: string
  child: Subprocess<'ignore', 'pipe', 'pipe'> | undefined
  /** What the process wrote since the harness started it (log lines on stdout, errors on stderr). */
  output: string[]
}

export interface ClusterOptions {
  processes?: number
  /** Flags every process gets after the harness's own (a later flag wins). */
  flags?: string[]
  mx?: FakeMxOptions
  /** A database URL the processes use instead of the fresh database's (a proxy in front of it). */
  databaseUrl?: (fresh: string) => string
}

export interface Cluster extends DataPlace {
  dns: FakeDns
  mx: FakeMx
  database: TestDatabase
  /** The flags every process runs with (all but its ports and data directory). */
  flags: string[]
  nodes: ClusterNode[]
  project: { id: number; secretKey: string; publicKey: string }
  /** Calls the API of process `node`, as the project with its secret key unless `key` is given. */
  api(node: number, method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any; headers: Headers }>
  /** Starts process `node` (again, on the same ports and data directory); resolves once /health answers. */
  start(node: number): Promise<void>
  /** SIGKILLs process `node`, as a crash or a pulled plug would, and waits until it is gone. */
  kill(node: number): Promise<void>
  /** The pid of process `node`, which names it in the owner of its leases and claims. */
  pid(node: number): number
  /** Runs `mailstead ARGS` in a child process on the cluster's database. */
  cli(args: string[]): ReturnType<typeof mailsteadChild>
  /** Adds sender.example.com through process 0 and waits until every process sees it verified. */
  verifiedDomain(): Promise<{ id: number }>
  rows<T>(query: string): Promise<T[]>
  close(): Promise<void>
}

const SECRET = 'cluster-test-secret-cluster-test-secret-0'

/**
 * Several `mailstead serve` processes, each in a child process with its own HTTP and SMTP ports
 * and data directory, on one fresh PostgreSQL database, delivering to one fake MX and asking one
 * fake DNS: what a cluster behind a load balancer is, on one machine. Leases last 5 s, so a
 * killed process's work is taken over soon. `MAILSTEAD_TEST_CLUSTER_LOGS=1` prints each process's
 * log when the cluster is closed.
 */
export async function createCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const dns = await new FakeDns().start()
  const mx = await new FakeMx(options.mx).start('127.0.0.2')
  for (const domain of RECIPIENT_DOMAINS) dns.records(domain, { type: 'MX', exchange: 'mx.example.net', priority: 10 })
  dns.records('mx.example.net', { type: 'A', address: '127.0.0.2' })
  const database = await freshPostgres()
  const databaseUrl = options.databaseUrl?.(database.url) ?? database.url
  const flags = [
    '--database-url', databaseUrl, '--secret', SECRET, '--dns-servers', dns.address, '--dns-timeout-ms', '500', '--hostname', 'mx.mailstead.test',
    '--delivery-port', String(mx.port), '--delivery-allow-private-targets', 'true', '--send-rate-per-second', '100000', '--log-level', 'warn',
    '--smtp-timeout-seconds', '5', '--lease-seconds', '5', '--relay-tls-port', 'off',
    ...(options.flags ?? []),
  ]
  const commonDir = mkdtempSync(join(tmpdir(), 'mailstead-cluster-'))
  const created = await mailsteadChild(['project', 'create', '--name', 'Cluster', '--json', '--data-dir', commonDir, ...flags])
  if (created.code !== 0) {
    await Promise.all([mx.stop(), dns.stop(), database.drop()])
    throw new Error(`project create failed: ${created.err}`)
  }
  const project = JSON.parse(created.out)
  const nodes: ClusterNode[] = []
  for (let index = 0; index < (options.processes ?? 3); index++) {
    nodes.push({ index, port: await freePort(), mxPort: await freePort(), relayPort: await freePort(), dir: join(commonDir, `node${index}`), child: undefined, output: [] })
  }

  const cluster: Cluster = {
    dns,
    mx,
    database,
    dir: commonDir,
    databaseUrl: database.url,
    flags,
    nodes,
    project,
    async api(node, method, path, body, key = project.secretKey) {
      const response = await fetch(`http://127.0.0.1:${nodes[node]!.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // Not JSON: the test gets the text.
      }
      return { status: response.status, body: parsed as any, headers: response.headers }
    },
    start: (node) => startNode(nodes[node]!, flags),
    async kill(node) {
      const child = nodes[node]!.child
      child?.kill('SIGKILL')
      await child?.exited
    },
    pid: (node) => nodes[node]!.child!.pid,
    cli: (args) => mailsteadChild([...args, '--data-dir', commonDir, ...flags]),
    async verifiedDomain() {
      const domain = (await cluster.api(0, 'POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })).body
      publishRecords(dns, domain.dnsRecords)
      await cluster.api(0, 'PUT', `/api/v1/domains/${domain.id}/verify`)
      for (const node of nodes.keys()) {
        const status = await until(
          async () => (await cluster.api(node, 'GET', `/api/v1/domains/${domain.id}`)).body.status,
          (s) => s === 'SUCCESS',
        )
        if (status !== 'SUCCESS') throw new Error(`process ${node} sees the domain ${status}`)
      }
      return domain
    },
    rows: (query) => readRows(cluster, query),
    async close() {
      for (const node of nodes) node.child?.kill('SIGKILL')
      await Promise.all(nodes.map((node) => node.child?.exited))
      if (process.env.MAILSTEAD_TEST_CLUSTER_LOGS) {
        for (const node of nodes) process.stderr.write(`--- process ${node.index} ---\n${node.output.join('')}\n`)
      }
      await mx.stop()
      await dns.stop()
      rmSync(commonDir, { recursive: true, force: true })
      await database.drop()
    },
  }
  try {
    await Promise.all(nodes.map((node) => startNode(node, flags)))
  } catch (error) {
    await cluster.close()
    throw error
  }
  return cluster
}

async function startNode(node: ClusterNode, flags: string[]): Promise<void> {
  const ports = ['--http-port', String(node.port), '--mx-port', String(node.mxPort), '--relay-port', String(node.relayPort)]
  const child = Bun.spawn([...SOURCE_COMMAND, 'serve', '--data-dir', node.dir, ...flags, ...ports], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  node.child = child
  // Read as it comes, or a full pipe would stop the process.
  void collect(child.stdout, node.output)
  void collect(child.stderr, node.output)
  const up = await until(
    async () => {
      if (child.exitCode !== null) return 'exited'
      return fetch(`http://127.0.0.1:${node.port}/health`).then(
        (r) => (r.ok ? 'up' : 'starting'),
        () => 'starting',
      )
    },
    (state) => state !== 'starting',
    20_000,
  )
  if (up === 'up') return
  child.kill('SIGKILL')
  throw new Error(`process ${node.index} did not start (${up}): ${node.output.join('').slice(-2000)}`)
}

async function collect(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder()
  for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }))
}

/** How many times each recipient got a message at the fake MX, and the Message-IDs they got. */
export function receipts(mx: FakeMx): Map<string, string[]> {
  const byRecipient = new Map<string, string[]>()
  for (const message of mx.received) {
    const id = /^message-id:\s*(\S+)/im.exec(message.raw.toString('latin1'))?.[1] ?? ''
    for (const to of message.to) byRecipient.set(to, [...(byRecipient.get(to) ?? []), id])
  }
  return byRecipient
}

/** Receipts beyond the first, over all recipients. */
export const duplicates = (mx: FakeMx) => [...receipts(mx).values()].reduce((sum, ids) => sum + ids.length - 1, 0)

/**
 * Deliveries that process `pid` holds (its owner, src/cluster/claim-keeper.ts, names its pid).
 * Read at once after a kill, before their lease runs out and another process takes them, it
 * bounds the messages that process may have handed to the MX without recording it.
 */
export async function deliveriesInFlight(cluster: Cluster, pid: number): Promise<number> {
  const rows = await cluster.rows<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE claimed_by LIKE '%/${pid}/%'`)
  return rows[0]!.n
}
