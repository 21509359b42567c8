// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { CLUSTER_SKIPPED, createCluster, deliveriesInFlight, duplicates, ON_POSTGRES_ONLY, RECIPIENT_DOMAINS, receipts, until, type Cluster } from '../helpers/cluster.ts'

let cluster: Cluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

const COUNT = 10_000

/** Adds the contacts through the bulk route of a contact book, 1,000 a request, spread over the processes. */
async function addContacts(c: Cluster, emails: string[]) {
  const book = (await c.api(0, 'POST', '/api/v1/contactBooks', { name: 'Everyone' })).body
  for (let i = 0; i < emails.length; i += 3000) {
    const answers = await Promise.all(
      [0, 1, 2].map((node) => {
        const chunk = emails.slice(i + node * 1000, i + node * 1000 + 1000)
        return chunk.length === 0 ? undefined : c.api(node, 'POST', `/api/v1/contactBooks/${book.id}/contacts/bulk`, chunk.map((email) => ({ email })))
      }),
    )
    for (const answer of answers) if (answer) expect(answer.status).toBe(200)
  }
}

describe.skipIf(CLUSTER_SKIPPED)(`a campaign sent by three processes ${ON_POSTGRES_ONLY}`, () => {
  test(`of ${COUNT.toLocaleString('en')} contacts, the process sending it SIGKILLed mid-send: every contact gets it once, duplicates no more than its claims`, async () => {
    const c = (cluster = await createCluster({ mx: { delayMs: 5 } }))
    await c.verifiedDomain()
    const emails = Array.from({ length: COUNT }, (_, i) => `fan${i}@${RECIPIENT_DOMAINS[i % RECIPIENT_DOMAINS.length]}`)
    await addContacts(c, emails)
    const created = await c.api(0, 'POST', '/campaigns', {
      name: 'Everyone',
      subject: 'News',
      body: '<p>Hello {{email}}</p>',
      from: 'news@sender.example.com',
      audienceType: 'ALL',
      // Several batches, so that the hand-off from one to the next goes on across the kill.
      batchSize: 2500,
    })
    expect(created.body.data.totalRecipients).toBe(COUNT)
    const campaignId = created.body.data.id
    expect((await c.api(1, 'POST', `/campaigns/${campaignId}/send`, {})).status).toBe(200)

    await until(async () => c.mx.received.length, (n) => n >= COUNT / 5, 120_000, 20)
    // The process sending the campaign (it holds the campaign's claim) is the one killed: the
    // batches it had yet to hand off are taken over with its deliveries. A campaign handed to the
    // queue in full already is held by none: then any process is, with its deliveries in flight.
    const [row] = await c.rows<{ claimed_by: string | null }>(`SELECT claimed_by FROM campaigns WHERE id = '${campaignId}'`)
    const sender = row?.claimed_by
    const holder = c.nodes.findIndex((node) => sender?.includes(`/${node.child!.pid}/`))
    const victim = holder >= 0 ? holder : 2
    const pid = c.pid(victim)
    await c.kill(victim)
    const inFlight = await deliveriesInFlight(c, pid)
    expect(c.mx.received.length).toBeLessThan(COUNT)
    // Probed through a process that lives.
    const alive = (victim + 1) % 3

    // A batch starts once the last has left the queue, so SENT comes at the pace of delivery: two
    // processes sending the rest of 10,000, slower when the machine runs other tests beside them.
    const status = await until(async () => (await c.api(alive, 'GET', `/campaigns/${campaignId}`)).body.data.status, (s) => s === 'SENT', 300_000, 250)
    expect(status).toBe('SENT')
    const states = await until(
      async () => Object.fromEntries((await c.rows<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM deliveries GROUP BY state')).map((r) => [r.state, r.n])),
      (s) => s.delivered === COUNT,
      // The last batch is handed off at SENT and still delivered at the same pace.
      240_000,
      250,
    )
    expect(states).toEqual({ delivered: COUNT })
    const perContact = await c.rows<{ n: number; contacts: number }>('SELECT n, count(*)::int AS contacts FROM (SELECT contact_id, count(*)::int AS n FROM emails GROUP BY contact_id) AS e GROUP BY n')
    expect(perContact).toEqual([{ n: 1, contacts: COUNT }])
    const got = receipts(c.mx)
    expect(emails.filter((email) => !got.has(email))).toEqual([])
    // What arrived twice is the same email (one Message-ID), and only what the killed process had in flight.
    for (const ids of got.values()) expect(new Set(ids).size).toBe(1)
    expect(duplicates(c.mx)).toBeLessThanOrEqual(inFlight)
  }, 720_000)
})
