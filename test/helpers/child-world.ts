import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, SOURCE_COMMAND, startServer } from './child.ts'
import { publishRecords } from './domains.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from './fake-dns.ts'
import { FakeMx, type FakeMxOptions } from './fake-mx.ts'
import { freshPostgres, onPostgres } from './postgres.ts'
import { waitFor } from './until.ts'

export interface ChildWorld {
  dns: FakeDns
  /** The receiving server of recipients at example.net. */
  mx: FakeMx
  dir: string
  /** The PostgreSQL database the server keeps its data in when the suite runs there; on SQLite, none (the file in `dir`). */
  databaseUrl: string | undefined
  /** The HTTP port the server listens on. */
  port: number
  /** The settings flags the server runs with (all but --http-port). */
  flags: string[]
  /** The server, as `mailstead serve` in a child process, once started. */
  child: Subprocess | undefined
  /** Calls the API as the project, with its secret key. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  /** Starts the server (again) on the same data and port. */
  start(): Promise<void>
  /** Kills the server with SIGKILL, as a crash would. */
  kill(): Promise<void>
  /** Adds sender.example.com to the project and waits until it is verified. */
  verifiedDomain(): Promise<void>
  close(): Promise<void>
}

/**
 * A server run as a user runs it, in a child process that a test can kill, with fake DNS and a
 * fake MX for example.net: for what must survive a crash.
 */
export async function createChildWorld(secret: string, mxOptions: FakeMxOptions = {}, command = SOURCE_COMMAND, extraFlags: string[] = []): Promise<ChildWorld> {
  const dns = await new FakeDns().start()
  const mx = await new FakeMx(mxOptions).start('127.0.0.2')
  dns.records('example.net', { type: 'MX', exchange: 'mx.example.net', priority: 10 }).records('mx.example.net', { type: 'A', address: '127.0.0.2' })
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-child-'))
  const database = onPostgres ? await freshPostgres() : undefined
  const flags = [
    '--data-dir', dir, ...(database ? ['--database-url', database.url] : []), '--secret', secret, '--dns-servers', dns.address, '--dns-timeout-ms', String(FAKE_DNS_TIMEOUT_MS), '--hostname', 'mx.mailstead.test',
    '--delivery-port', String(mx.port), '--delivery-allow-private-targets', 'true', '--send-rate-per-second', '10000', '--log-level', 'error', '--smtp-timeout-seconds', '2',
    '--mx-port', 'off', '--relay-port', 'off', '--relay-tls-port', 'off',
    // What a killed server held is taken over by the next after its leases run out: soon, here.
    '--lease-seconds', '2',
    ...extraFlags,
  ]
  const created = Bun.spawnSync([...command, 'project', 'create', '--name', 'Child', '--json', ...flags])
  if (created.exitCode !== 0) throw new Error(`project create failed: ${created.stderr.toString()}`)
  const project = JSON.parse(created.stdout.toString())
  const port = await freePort()
  const world: ChildWorld = {
    dns,
    mx,
    dir,
    databaseUrl: database?.url,
    port,
    flags,
    child: undefined,
    api: (method, path, body) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
    async start() {
      world.child = await startServer(flags, port, command)
    },
    async kill() {
      world.child?.kill('SIGKILL')
      await world.child?.exited
    },
    async verifiedDomain() {
      const domain = (await world.api('POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })).body
      publishRecords(dns, domain.dnsRecords)
      await world.api('PUT', `/api/v1/domains/${domain.id}/verify`)
      await waitFor(async () => (await world.api('GET', `/api/v1/domains/${domain.id}`)).body.status === 'SUCCESS', 'the domain to be verified')
    },
    async close() {
      world.child?.kill('SIGKILL')
      await mx.stop()
      await dns.stop()
      rmSync(dir, { recursive: true, force: true })
      await database?.drop()
    },
  }
  return world
}
