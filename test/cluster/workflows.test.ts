// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { CLUSTER_SKIPPED, createCluster, ON_POSTGRES_ONLY, RECIPIENT_DOMAINS, receipts, until, type Cluster } from '../helpers/cluster.ts'

let cluster: Cluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

const CONTACTS = 120

describe.skipIf(CLUSTER_SKIPPED)(`workflows run by three processes ${ON_POSTGRES_ONLY}`, () => {
  test('each contact\'s event tracked on all three at once: one run per contact, each step run once', async () => {
    // Every track request comes from 127.0.0.1: the per-address budget would otherwise stop them.
    const c = (cluster = await createCluster({ flags: ['--track-rate-limit-per-address-per-minute', '100000', '--track-rate-limit-per-minute', '100000'] }))
    await c.verifiedDomain()
    const flow = await c.api(0, 'POST', '/workflows', {
      name: 'Welcome',
      enabled: true,
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
      steps: [
        { id: 'hello', type: 'SEND_EMAIL', config: { from: 'Shop <shop@sender.example.com>', subject: 'Welcome', body: '<p>Hello {{email}}</p>' }, next: 'mark' },
        { id: 'mark', type: 'UPDATE_CONTACT', config: { data: { welcomed: true } } },
      ],
    })
    expect(flow.status).toBeLessThan(300)
    // Each process sees the new workflow from its next change-signal read on.
    await Bun.sleep(1500)

    const emails = Array.from({ length: CONTACTS }, (_, i) => `member${i}@${RECIPIENT_DOMAINS[i % RECIPIENT_DOMAINS.length]}`)
    for (let i = 0; i < emails.length; i += 20) {
      const answers = await Promise.all(
        emails.slice(i, i + 20).flatMap((email) => [0, 1, 2].map((node) => c.api(node, 'POST', '/v1/track', { email, event: 'signup', data: { from: node } }, c.project.publicKey))),
      )
      expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([])
    }

    const runs = await until(
      () => c.rows<{ contact_id: string; state: string }>(`SELECT contact_id, state FROM workflow_executions WHERE workflow_id = '${flow.body.id}'`),
      (rows) => rows.length >= CONTACTS && rows.every((r) => r.state === 'COMPLETED'),
      90_000,
      250,
    )
    expect(runs.length).toBe(CONTACTS)
    expect(new Set(runs.map((r) => r.contact_id)).size).toBe(CONTACTS)
    expect(runs.every((r) => r.state === 'COMPLETED')).toBe(true)
    const steps = await c.rows<{ step_id: string; n: number; runs: number }>(
      `SELECT step_id, n, count(*)::int AS runs FROM (SELECT execution_id, step_id, count(*)::int AS n FROM workflow_execution_steps GROUP BY execution_id, step_id) AS s GROUP BY step_id, n ORDER BY step_id`,
    )
    expect(steps).toEqual([
      { step_id: 'hello', n: 1, runs: CONTACTS },
      { step_id: 'mark', n: 1, runs: CONTACTS },
    ])
    await until(async () => c.mx.received.length, (n) => n >= CONTACTS, 60_000)
    // Nothing more arrives after a pause: no run sent twice.
    await Bun.sleep(1000)
    const got = receipts(c.mx)
    expect(emails.filter((email) => got.get(email)?.length !== 1)).toEqual([])
    expect(c.mx.received.length).toBe(CONTACTS)
  }, 180_000)
})
