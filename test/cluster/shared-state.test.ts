// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CLUSTER_SKIPPED, createCluster, ON_POSTGRES_ONLY, until, type Cluster } from '../helpers/cluster.ts'

/*
 * What one process decides for all: a project's request budget, and the keys and projects it
 * may serve. Each test makes a project of its own on one cluster.
 */

let c: Cluster

beforeAll(async () => {
  if (!CLUSTER_SKIPPED) c = await createCluster()
})

afterAll(() => c?.close())

/** A new project, made by the CLI (a fourth process): its id and keys. */
async function newProject(name: string): Promise<{ id: number; secretKey: string; publicKey: string }> {
  const made = await c.cli(['project', 'create', '--name', name, '--json'])
  expect(made.code).toBe(0)
  return JSON.parse(made.out)
}

const statuses = (answers: Array<{ status: number }>) => answers.map((a) => a.status)

describe.skipIf(CLUSTER_SKIPPED)(`three processes share one budget and one view of keys ${ON_POSTGRES_ONLY}`, () => {
  test('the rate limit is exact across the three: 1,000 requests a minute spread over them pass, the 1,001st is 429 on each', async () => {
    const { secretKey } = await newProject('Budgeted')
    const answers: Array<{ status: number }> = []
    // Round-robin over the processes, 30 at a time, as a load balancer spreads them.
    for (let i = 0; i < 1000; i += 30) {
      const count = Math.min(30, 1000 - i)
      answers.push(...(await Promise.all(Array.from({ length: count }, (_, j) => c.api((i + j) % 3, 'GET', '/contacts?limit=1', undefined, secretKey)))))
    }
    expect(statuses(answers).filter((s) => s !== 200)).toEqual([])
    for (const node of [0, 1, 2]) {
      const refused = await c.api(node, 'GET', '/contacts?limit=1', undefined, secretKey)
      expect({ node, status: refused.status, code: refused.body.code }).toEqual({ node, status: 429, code: 'RATE_LIMITED' })
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    }
  }, 60_000)

  test('a key revoked by the CLI is refused by all three within 5 seconds; a disabled project too', async () => {
    const project = await newProject('Revoked')
    const listed = await c.cli(['key', 'list', '--project', String(project.id), '--json'])
    const secret = (JSON.parse(listed.out) as Array<{ id: number; type: string }>).find((key) => key.type === 'secret')!
    // Each process has the key in its cache before the revocation.
    expect(statuses(await Promise.all([0, 1, 2].map((node) => c.api(node, 'GET', '/contacts', undefined, project.secretKey))))).toEqual([200, 200, 200])
    expect((await c.cli(['key', 'revoke', String(secret.id), '--yes'])).code).toBe(0)
    const revokedAt = Date.now()
    const refused = await until(
      () => Promise.all([0, 1, 2].map((node) => c.api(node, 'GET', '/contacts', undefined, project.secretKey))),
      (answers) => answers.every((a) => a.status === 401),
      10_000,
      100,
    )
    expect(statuses(refused)).toEqual([401, 401, 401])
    expect(Date.now() - revokedAt).toBeLessThan(5000)

    const track = (node: number) => c.api(node, 'POST', '/v1/track', { email: 'reader@example.net', event: 'seen' }, project.publicKey)
    expect(statuses(await Promise.all([0, 1, 2].map(track)))).toEqual([200, 200, 200])
    expect((await c.cli(['project', 'disable', String(project.id), '--yes'])).code).toBe(0)
    const disabledAt = Date.now()
    const held = await until(() => Promise.all([0, 1, 2].map(track)), (answers) => answers.every((a) => a.status === 403), 10_000, 100)
    expect(held.map((a) => a.body.code)).toEqual(['PROJECT_DISABLED', 'PROJECT_DISABLED', 'PROJECT_DISABLED'])
    expect(Date.now() - disabledAt).toBeLessThan(5000)
  }, 60_000)
})
