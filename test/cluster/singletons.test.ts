// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { CLUSTER_SKIPPED, createCluster, ON_POSTGRES_ONLY, until, type Cluster } from '../helpers/cluster.ts'
import { openDirect } from '../helpers/direct-db.ts'

let cluster: Cluster | undefined
const closing: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
  await cluster?.close()
  cluster = undefined
})

const METRICS_TOKEN = 'cluster-metrics-token-0123456789abcdef'
const DOMAINS = ['one.example.com', 'two.example.com', 'three.example.com']
/** The checker's timer (src/workers/domain-checker.ts): a round of checks at most this often. */
const ROUND_MS = 30_000

/** Domain checks process `node` made since it started, by its metrics. */
async function checksBy(c: Cluster, node: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${c.nodes[node]!.port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  const lines = (await response.text()).split('\n').filter((line) => line.startsWith('mailstead_domain_checks_total'))
  return lines.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)
}

/** Checks of each domain so far, over all processes: its DMARC record is asked once a check. */
const checksOf = (c: Cluster) => DOMAINS.map((name) => c.dns.queries.filter((q) => q.name === `_dmarc.${name}`).length)

/** The process holding the DNS checker's lease, by the pid its owner names. */
async function checkerHolder(c: Cluster): Promise<number | undefined> {
  const [lease] = await c.rows<{ owner: string }>(`SELECT owner FROM leases WHERE name = 'domain-checker' AND expires_at > ${Date.now()}`)
  return c.nodes.findIndex((node) => node.child?.exitCode === null && lease?.owner.includes(`/${node.child.pid}/`))
}

describe.skipIf(CLUSTER_SKIPPED)(`singletons across three processes ${ON_POSTGRES_ONLY}`, () => {
  test('one DNS-check round per interval across the three; after the holder is SIGKILLed, another takes over within the lease', async () => {
    const c = (cluster = await createCluster({ flags: ['--metrics-token', METRICS_TOKEN] }))
    const holder = await until(() => checkerHolder(c), (node) => node !== undefined && node >= 0)
    expect(holder).toBeGreaterThanOrEqual(0)
    for (const [i, name] of DOMAINS.entries()) expect((await c.api(i, 'POST', '/api/v1/domains', { name, region: 'us-east-1' })).status).toBe(200)
    // Every domain is kept due: each process's timer would check them all if it ran one.
    const database = await openDirect(c)
    closing.push(() => database.close())
    const due = setInterval(() => void sql`UPDATE domains SET next_check_at = 0`.execute(database.db).catch(() => {}), 200)
    closing.push(async () => clearInterval(due))

    await until(async () => checksOf(c), (counts) => counts.every((n) => n >= 1), ROUND_MS + 15_000, 100)
    // The other processes started within a second or two of the holder: their timers would have come by now.
    await Bun.sleep(3000)
    expect(checksOf(c)).toEqual([1, 1, 1])
    expect(await Promise.all([0, 1, 2].map((node) => checksBy(c, node)))).toEqual([0, 1, 2].map((node) => (node === holder ? DOMAINS.length : 0)))

    const killedAt = Date.now()
    await c.kill(holder!)
    const next = await until(() => checkerHolder(c), (node) => node !== undefined && node >= 0 && node !== holder, 15_000, 100)
    // Within the lease (5 s) and one try (a third of it), with room for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(10_000)
    expect(next).not.toBe(holder)
    await until(async () => checksOf(c), (counts) => counts.every((n) => n >= 2), ROUND_MS + 15_000, 100)
    await Bun.sleep(3000)
    expect(checksOf(c)).toEqual([2, 2, 2])
    const survivors = [0, 1, 2].filter((node) => node !== holder)
    expect(await Promise.all(survivors.map((node) => checksBy(c, node)))).toEqual(survivors.map((node) => (node === next ? DOMAINS.length : 0)))
  }, 120_000)
})
