// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { onPostgres, twoConnections } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { createProject } from '../projects/projects.service.ts'
import { saveContact } from './contacts.service.ts'

/** Two processes' connections to one database. */
let first: Database
let second: Database
let connections: Awaited<ReturnType<typeof twoConnections>>

beforeEach(async () => {
  connections = await twoConnections()
  ;({ first: first, second: second } = connections)
})

afterEach(() => connections.close())

describe('saveContact', () => {
  test('two processes saving one new address at once make one contact: created by one, updated by the other', async () => {
    const project = await createProject(first.db, 'P', 0)
    let looked = 0
    let bothLooked = () => {}
    const lookedUp = onPostgres ? new Promise<void>((resolve) => (bothLooked = resolve)) : Promise.resolve()
    // On PostgreSQL each transaction looks the address up before either writes; SQLite's write lock lets one in at a time.
    const save = (db: Db, data: Record<string, unknown>) =>
      writeTransaction(db, async (trx) => {
        await trx.selectFrom('contacts').select('id').where('email_key', '=', 'jane@example.com').execute()
        if (++looked === 2) bothLooked()
        await lookedUp
        return saveContact(trx, project.id, { email: 'Jane@example.com', data }, 1)
      })
    const results = onPostgres ? await Promise.all([save(first.db, { a: 1 }), save(second.db, { b: 2 })]) : [await save(first.db, { a: 1 }), await save(second.db, { b: 2 })]
    expect(results.map((r) => r.created).sort()).toEqual([false, true])
    const rows = await first.db.selectFrom('contacts').select(['id']).execute()
    expect(rows).toHaveLength(1)
    expect(results.every((r) => r.contact.id === rows[0]!.id)).toBe(true)
    expect(results.find((r) => !r.created)!.contact.data).toEqual({ a: 1, b: 2 })
  })
})
