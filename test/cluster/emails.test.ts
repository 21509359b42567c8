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
    // Each batch to the next process in turn, as a load balancer spreads them; three at a time.
    for (let b = 0; b < batches.length; b += 3) {
      const answers = await Promise.all(
        batches.slice(b, b + 3).map((batch, i) => c.api(i, 'POST', '/api/v1/emails/batch', batch.map((to) => ({ from: 'app@sender.example.com', to, subject: `Hello ${to}`, text: 'Hi' })))),
      )
      for (const answer of answers) {
        expect(answer.status).toBe(200)
        accepted.push(...answer.body.data.map((d: { emailId: string }) => d.emailId))
      }
    }
    expect(new Set(accepted).size).toBe(COUNT)

    await until(async () => c.mx.received.length, (n) => n >= COUNT / 4, 60_000, 10)
    const victim = 1
    const pid = c.pid(victim)
    await c.kill(victim)
    const inFlight = await deliveriesInFlight(c, pid)
    expect(c.mx.received.length).toBeLessThan(COUNT)

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
