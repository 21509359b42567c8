// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { CLUSTER_SKIPPED, createCluster, deliveriesInFlight, duplicates, ON_POSTGRES_ONLY, RECIPIENT_DOMAINS, receipts, until, type Cluster } from '../helpers/cluster.ts'

let cluster: Cluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

const COUNT = 3000

describe.skipIf(CLUSTER_SKIPPED)(`three processes sending ${ON_POSTGRES_ONLY}`, () => {
  test(`${COUNT} emails through the API of all three, one SIGKILLed mid-delivery: every email delivered, duplicates no more than its claims`, async () => {
    // A slow MX keeps every process's attempts in flight long enough for the kill to catch some.
    const c = (cluster = await createCluster({ mx: { delayMs: 15 } }))
    await c.verifiedDomain()
    const recipients = Array.from({ length: COUNT }, (_, i) => `user${i}@${RECIPIENT_DOMAINS[i % RECIPIENT_DOMAINS.length]}`)
    const batches = Array.from({ length: COUNT / 100 }, (_, b) => recipients.slice(b * 100, b * 100 + 100))
    const accepted: string[] = []
    const victim = 1
    let alive = [0, 1, 2]
    let inFlight = -1
    // Each batch to the next live process in turn, as a load balancer spreads them, one a process at a time.
    for (let b = 0; b < batches.length; ) {
      const round = batches.slice(b, b + alive.length)
      b += round.length
      const answers = await Promise.all(
        round.map((batch, i) => c.api(alive[i]!, 'POST', '/api/v1/emails/batch', batch.map((to) => ({ from: 'app@sender.example.com', to, subject: `Hello ${to}`, text: 'Hi' })))),
      )
      for (const answer of answers) {
        expect(answer.status).toBe(200)
        accepted.push(...answer.body.data.map((d: { emailId: string }) => d.emailId))
      }
      // Once delivery is well under way, between two rounds of requests (none of them is cut off),
      // one process dies; the balancer sends the rest to the other two.
      if (inFlight < 0 && c.mx.received.length >= COUNT / 10) {
        const pid = c.pid(victim)
        // Killed while it holds deliveries (a busy machine may find it between two claims), so
        // that the others have something to take over.
        await until(() => deliveriesInFlight(c, pid), (held) => held > 0, 5_000, 5)
        await c.kill(victim)
        inFlight = await deliveriesInFlight(c, pid)
        alive = alive.filter((node) => node !== victim)
      }
    }
    expect(new Set(accepted).size).toBe(COUNT)
    // The kill caught the process with deliveries in hand, or it would show nothing of a takeover.
    expect(inFlight).toBeGreaterThan(0)

    // The other two take over what the killed one held once its claims' lease (5 s) runs out.
    const states = await until(
      async () => Object.fromEntries((await c.rows<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM deliveries GROUP BY state')).map((r) => [r.state, r.n])),
      (s) => s.delivered === COUNT,
      90_000,
      250,
    )
    expect(states).toEqual({ delivered: COUNT })
    const got = receipts(c.mx)
    expect(recipients.filter((to) => !got.has(to))).toEqual([])
    // A message can only have arrived twice if the killed process had it in flight; a duplicate is the same email.
    expect(duplicates(c.mx)).toBeLessThanOrEqual(inFlight)
    for (const ids of got.values()) expect(new Set(ids).size).toBe(1)
  }, 150_000)
})
