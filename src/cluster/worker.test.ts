// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { openTestDatabase } from '../../test/helpers/postgres.ts'
import { ManualClock } from '../../test/helpers/clock.ts'
import { Holdings, type Claiming } from '../db/claims.ts'
import type { Database } from '../db/client.ts'
import type { Db } from '../db/schema.ts'
import { silentLogger } from '../lib/logger.ts'
import { createWorker, type WorkerSpec } from './worker.ts'

let database: Database
let db: Db
let claimant: Claiming

beforeEach(async () => {
  database = await openTestDatabase()
  db = database.db
  claimant = { owner: 'host/1/worker', leaseMs: 30_000, write: (work) => work(db), held: new Holdings() }
})

afterEach(() => database.close())

const deps = () => ({ write: <T>(work: (trx: Db) => Promise<T>) => work(db), clock: new ManualClock(), logger: silentLogger })

/** A worker whose rounds are counted and answer `more` until told otherwise. */
function counted(spec: Partial<WorkerSpec> = {}) {
  const rounds = { count: 0 }
  const worker = createWorker({ tag: 'TEST', failed: 'round failed', round: async () => (rounds.count++, false), ...spec }, deps())
  return { worker, rounds }
}

const until = async (holds: () => boolean) => {
  for (let i = 0; i < 200 && !holds(); i++) await Bun.sleep(5)
}

describe('the worker base', () => {
  test('a round runs at the start and then on its timer; none runs once stopped', async () => {
    const { worker, rounds } = counted({ pollMs: 5 })
    worker.start()
    await until(() => rounds.count >= 3)
    await worker.stop()
    const seen = rounds.count
    await Bun.sleep(30)
    expect(seen).toBeGreaterThanOrEqual(3)
    expect(rounds.count).toBe(seen)
  })

  test('a worker that leaves its first round to the timer runs none at the start', async () => {
    const { worker, rounds } = counted({ pollMs: 60_000, roundAtStart: false })
    worker.start()
    await Bun.sleep(10)
    expect(rounds.count).toBe(0)
    worker.wake()
    await worker.idle()
    expect(rounds.count).toBe(1)
    await worker.stop()
  })

  test('the stop waits for the work in flight, then writes what it finishes with', async () => {
    const order: string[] = []
    const { worker } = counted({ finish: async () => void order.push('finished') })
    worker.start()
    worker.track(Bun.sleep(20).then(() => order.push('work done')))
    await worker.stop()
    expect(order).toEqual(['work done', 'finished'])
  })

  test('a claim holds what it answered until it is let go, and the stop gives back what is still held', async () => {
    const { worker } = counted({ claims: { table: 'campaigns', claimant } })
    const claimed = await worker.claim(async (_trx, who) => (who === claimant ? [{ id: 'a' }, { id: 'b' }] : []), (row) => row.id)
    expect(claimed).toHaveLength(2)
    expect(worker.held()).toEqual(['a', 'b'])
    worker.letGo(['a'])
    expect(claimant.held.ids('campaigns')).toEqual(['b'])
    worker.start()
    await worker.stop()
    // Nothing is left for the claim keeper to renew.
    expect(claimant.held.ids('campaigns')).toEqual([])
  })

  test('a worker that leaves its rows to their leases keeps holding them at its stop', async () => {
    const { worker } = counted({ claims: { table: 'domains', claimant, givesBack: false } })
    await worker.claim(async () => [{ id: 1 }], (row) => row.id)
    worker.start()
    await worker.stop()
    expect(claimant.held.ids('domains')).toEqual([1])
  })

  test('work taken one at a time takes nothing while stopped, and drains when opened', async () => {
    const { worker } = counted()
    let taken = 0
    const take = worker.coalesced(async () => ++taken)
    expect(await take()).toBe(0)
    expect(await worker.open(() => take())).toBe(1)
    expect(worker.taking).toBe(false)
  })
})
