// @database
import { afterEach, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createChildWorld } from '../helpers/child-world.ts'
import { freePort, startServer } from '../helpers/child.ts'
import { readRows } from '../helpers/direct-db.ts'
import { until } from '../helpers/until.ts'

const SINGLETONS = ['body-pruner', 'domain-checker', 'guardrail-monitor', 'membership-tracker']
const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
})

const leases = (t: TestApp) => t.app.db.selectFrom('leases').select(['name', 'owner', 'expires_at']).orderBy('name').execute()

/** Two processes' apps on one database, each running the scheduler. */
async function twoSchedulers() {
  const first = await createTestApp({ 'lease-seconds': '1' })
  closing.push(() => first.close())
  const url = first.databaseFlags[1]
  const second = await createTestApp({ 'data-dir': first.dataDir, ...(url && { 'database-url': url }), 'lease-seconds': '1' })
  closing.push(() => second.app.stop())
  return [first, second] as const
}

describe('singletons run in one process at a time, by a lease', () => {
  test('of two processes started together, one holds every singleton; when it stops, the other takes them within the lease', async () => {
    const [first, second] = await twoSchedulers()
    await Promise.all([first.app.start(), second.app.start()])
    const held = await leases(first)
    expect(held.map((l) => l.name)).toEqual(SINGLETONS)
    // Each singleton has one holder, one of the two; the test does not mind which won each race.
    const owners = [first.app.leaseOwner, second.app.leaseOwner]
    expect(held.every((l) => owners.includes(l.owner))).toBe(true)

    // Stopped, the holder of the DNS checker gives its leases up: the other has them all at its next try.
    const stopper = held.find((l) => l.name === 'domain-checker')!.owner === first.app.leaseOwner ? first : second
    const stayer = stopper === first ? second : first
    await stopper.app.stop()
    const after = await until(() => leases(stayer), (rows) => rows.length === SINGLETONS.length && rows.every((l) => l.owner === stayer.app.leaseOwner))
    expect(after.map((l) => [l.name, l.owner])).toEqual(SINGLETONS.map((name) => [name, stayer.app.leaseOwner]))
  })

  test('the lease is renewed while its holder runs: it does not pass to the other process', async () => {
    const [first, second] = await twoSchedulers()
    await first.app.start()
    const before = await leases(first)
    expect(before.map((l) => l.owner)).toEqual(SINGLETONS.map(() => first.app.leaseOwner))
    await second.app.start()
    // Once renewed, the lease could have passed had the holder let go of it.
    const after = await until(() => leases(first), (rows) => rows[0]!.expires_at > before[0]!.expires_at, 10_000)
    expect(after.map((l) => l.owner)).toEqual(before.map((l) => l.owner))
    expect(after[0]!.expires_at).toBeGreaterThan(before[0]!.expires_at)
  })
})

describe('a crash', () => {
  test('SIGKILL of the process holding the leases: the other process takes over once they expire', async () => {
    const w = await createChildWorld('singleton-test-secret-singleton-test-secret', {}, undefined, ['--lease-seconds', '2'])
    closing.push(() => w.close())
    await w.start()
    const read = () => readRows<{ name: string; owner: string }>(w, 'SELECT name, owner FROM leases ORDER BY name')
    const first = await until(read, (rows) => rows.length === SINGLETONS.length)
    const killedOwner = first[0]!.owner
    expect(first.every((l) => l.owner === killedOwner)).toBe(true)
    const other = await startServer(w.flags, await freePort())
    closing.push(async () => {
      other.kill('SIGKILL')
      await other.exited
    })
    await Bun.sleep(1000) // the other server's claims run at its start: a lease held is not taken
    expect((await read()).every((l) => l.owner === killedOwner)).toBe(true)
    const killedAt = Date.now()
    await w.kill()
    const taken = await until(read, (rows) => rows.length === SINGLETONS.length && rows.every((l) => l.owner !== killedOwner), 10_000)
    expect(taken.every((l) => l.owner !== killedOwner)).toBe(true)
    // Within the lease (2 s) and one try (a third of it), with room for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(6000)
  }, 60_000) // two servers started as a user starts them: more than 30 s on a loaded machine
})
