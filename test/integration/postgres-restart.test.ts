// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { CLUSTER_SKIPPED, createCluster, deliveriesInFlight, duplicates, ON_POSTGRES_ONLY, receipts, until, type Cluster } from '../helpers/cluster.ts'
import { POSTGRES_ADMIN_URL } from '../helpers/postgres.ts'
import { TcpProxy } from '../helpers/tcp-proxy.ts'

/*
 * A restart of PostgreSQL, as a process sees one: every connection cut at once ("terminating
 * connection due to administrator command", or just a closed socket), then refused for a while.
 * The machine's PostgreSQL is shared, so the restart is played by a proxy in front of it that
 * only this test's process goes through.
 */

let cluster: Cluster | undefined
let proxy: TcpProxy | undefined
afterEach(async () => {
  await cluster?.close()
  await proxy?.stop()
  cluster = proxy = undefined
})

const emailsTo = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ from: 'app@sender.example.com', to: `${prefix}${i}@example.net`, subject: 'Hello', text: 'Hi' }))

describe.skipIf(CLUSTER_SKIPPED)(`PostgreSQL restarting mid-run ${ON_POSTGRES_ONLY}`, () => {
  test('the process stays up, says what happened, reconnects, and delivers the mail queued before the outage and after it', async () => {
    const server = new URL(POSTGRES_ADMIN_URL)
    proxy = await new TcpProxy({ host: server.hostname, port: Number(server.port || 5432) }).start()
    const c = (cluster = await createCluster({ processes: 1, mx: { delayMs: 20 }, databaseUrl: (url) => proxy!.urlFor(url) }))
    await c.verifiedDomain()
    const before = [...emailsTo('before', 100), ...emailsTo('early', 100)]
    for (let i = 0; i < before.length; i += 100) expect((await c.api(0, 'POST', '/api/v1/emails/batch', before.slice(i, i + 100))).status).toBe(200)
    await until(async () => c.mx.received.length, (n) => n >= 40, 30_000, 10)

    const pid = c.pid(0)
    const connectionsBefore = proxy.connections
    // Queries hang a moment first, so that attempts under way meet the database gone in their reads too.
    proxy.stall()
    await Bun.sleep(1000)
    proxy.cut()
    const inFlight = await deliveriesInFlight(c, pid)
    // While the database is away a write is refused whole, and said to be the server's trouble.
    const refused = await c.api(0, 'POST', '/api/v1/emails/batch', emailsTo('during', 10))
    expect(refused.status).toBeGreaterThanOrEqual(500)
    expect(refused.body).toMatchObject({ success: false })
    await Bun.sleep(3000) // the outage lasts: the process must ride it out, not exit
    expect(c.nodes[0]!.child!.exitCode).toBeNull()
    proxy.resume()

    // The client's retry after the outage is accepted; nothing of the refused request was kept.
    const after = emailsTo('after', 100)
    const accepted = await until(() => c.api(0, 'POST', '/api/v1/emails/batch', after), (answer) => answer.status === 200, 20_000, 250)
    expect(accepted.status).toBe(200)
    expect(proxy.connections).toBeGreaterThan(connectionsBefore)
    const expected = [...before, ...after].map((e) => e.to)
    const got = await until(async () => receipts(c.mx), (r) => expected.every((to) => r.has(to)), 60_000, 250)
    const missing = expected.filter((to) => !got.has(to))
    // What became of them, should any be missing.
    const rows = missing.length === 0 ? [] : await c.rows(`SELECT recipient, state, claimed_by, attempts, last_response FROM deliveries WHERE recipient IN ('${missing.join("','")}')`)
    expect({ missing, rows }).toEqual({ missing: [], rows: [] })
    expect([...got.keys()].filter((to) => to.startsWith('during'))).toEqual([])
    expect(duplicates(c.mx)).toBeLessThanOrEqual(inFlight)
    const states = await until(
      async () => Object.fromEntries((await c.rows<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM deliveries GROUP BY state')).map((r) => [r.state, r.n])),
      (s) => s.delivered === expected.length,
      20_000,
      250,
    )
    expect(states).toEqual({ delivered: expected.length })
    // The log says what happened, in lines an operator can grep: the connection lost, by the loops that met it.
    const lines = c.nodes[0]!.output.join('').split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))
    const lost = lines.filter((line) => /Connection terminated|ECONNRESET|connection error/.test(`${line.msg} ${line.error ?? ''}`))
    expect(lost.length).toBeGreaterThan(0)
    expect(lost.every((line) => ['warn', 'error'].includes(line.level) && /^[A-Z]+(\[[a-z-]+\])?$/.test(line.tag))).toBe(true)
    // Nothing but the log lines: no stack of an unhandled error on stderr.
    expect(c.nodes[0]!.output.join('').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'))).toEqual([])
  }, 150_000)
})
