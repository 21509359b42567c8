// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { onPostgres, twoConnections } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { createProject } from '../projects/projects.service.ts'
import { once, requestHash } from './idempotency.ts'

/** Two processes' connections to one database. */
let first: Database
let second: Database
let connections: Awaited<ReturnType<typeof twoConnections>>

beforeEach(async () => {
  connections = await twoConnections()
  ;({ first: first, second: second } = connections)
})

afterEach(() => connections.close())

describe('once', () => {
  test('the same request sent to two processes while the first runs is done once; both get its answer', async () => {
    const project = await createProject(first.db, 'P', 0)
    const hash = requestHash('/v1/send', { to: 'a@example.com' })
    let runs = 0
    let started = () => {}
    const firstStarted = new Promise<void>((resolve) => (started = resolve))
    const send = (work: () => Promise<{ n: number }>) => (trx: Database['db']) => once(trx, project.id, 'key-1', hash, 1, work)
    const one = writeTransaction(
      first.db,
      send(async () => {
        started()
        await Bun.sleep(200)
        return { n: ++runs }
      }),
    )
    // SQLite's write lock keeps the second transaction out until the first commits: it starts after.
    if (!onPostgres) await one
    await firstStarted
    const two = writeTransaction(second.db, send(async () => ({ n: ++runs })))
    expect(await Promise.all([one, two])).toEqual([{ n: 1 }, { n: 1 }])
    expect(runs).toBe(1)
  })
})
