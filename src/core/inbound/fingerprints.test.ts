// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { MIGRATIONS } from '../../../migrations/index.ts'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import { openSqlite } from '../../db/sqlite.ts'
import { migrate } from '../../db/migrator.ts'
import { FINGERPRINTS_KEPT_MS, firstSighting } from './fingerprints.repository.ts'

let database: Database
const DAY = 86_400_000
const T0 = Date.UTC(2025, 0, 1)

afterEach(() => database.close())

const kept = async () => (await database.db.selectFrom('inbound_reports').select('fingerprint').orderBy('fingerprint').execute()).map((r) => r.fingerprint)

describe('firstSighting', () => {
  beforeEach(async () => {
    database = await openTestDatabase()
  })

  test('is true once per key; what a key covers is recorded with it, and is then no first sighting', async () => {
    const hard = { key: 'delivery:1|hard-bounce', covers: ['delivery:1|bounce'] }
    expect(await firstSighting(database.db, hard, T0)).toBe(true)
    expect(await firstSighting(database.db, hard, T0)).toBe(false)
    expect(await firstSighting(database.db, { key: 'delivery:1|bounce', covers: [] }, T0)).toBe(false)
    expect(await kept()).toEqual(['delivery:1|bounce', 'delivery:1|hard-bounce'])
  })

  test('a key already covered (a soft bounce before the hard one) does not stop the key itself', async () => {
    expect(await firstSighting(database.db, { key: 'delivery:1|bounce', covers: [] }, T0)).toBe(true)
    expect(await firstSighting(database.db, { key: 'delivery:1|hard-bounce', covers: ['delivery:1|bounce'] }, T0)).toBe(true)
    expect(await firstSighting(database.db, { key: 'delivery:1|hard-bounce', covers: ['delivery:1|bounce'] }, T0)).toBe(false)
  })

  test('fingerprints older than the window are forgotten at the next write, a hundred at a time', async () => {
    const old = Array.from({ length: 150 }, (_, i) => ({ fingerprint: `delivery:${i}|complaint`, created_at: T0 + i }))
    await database.db.insertInto('inbound_reports').values(old).execute()
    const later = T0 + FINGERPRINTS_KEPT_MS + DAY
    expect(await firstSighting(database.db, { key: 'delivery:999|delay', covers: [] }, later)).toBe(true)
    expect((await kept()).length).toBe(51)
    expect(await firstSighting(database.db, { key: 'delivery:149|complaint', covers: [] }, later)).toBe(true)
    expect(await kept()).toEqual(['delivery:149|complaint', 'delivery:999|delay'])
  })

  test('within the window nothing is forgotten', async () => {
    await firstSighting(database.db, { key: 'delivery:1|complaint', covers: [] }, T0)
    expect(await firstSighting(database.db, { key: 'delivery:1|complaint', covers: [] }, T0 + FINGERPRINTS_KEPT_MS - DAY)).toBe(false)
  })
})

// SQLite's own migration: PostgreSQL's schema starts from a baseline past it.
describe('migration 0018', () => {
  beforeEach(() => {
    database = openSqlite(':memory:')
  })

  test('rewrites the fingerprints kept with their detail to their class, so what was applied stays applied', async () => {
    const upTo = MIGRATIONS.findIndex((m) => m.name === '0018_report_fingerprints')
    await migrate(database.db, MIGRATIONS.slice(0, upTo))
    const old = ['delivery:7|hard-bounce|5.1.1', 'delivery:7|hard-bounce|5.1.10', 'delivery:8|complaint|abuse', 'delivery:8|complaint|abuse1', 'delivery:9|delay|4.4.7', 'delivery:10|bounce|5.2.2', 'delivery:11|complaint|a|b']
    await database.db.insertInto('inbound_reports').values(old.map((fingerprint) => ({ fingerprint, created_at: T0 }))).execute()
    await migrate(database.db, MIGRATIONS)
    expect(await kept()).toEqual(['delivery:10|bounce', 'delivery:11|complaint', 'delivery:7|bounce', 'delivery:7|hard-bounce', 'delivery:8|complaint', 'delivery:9|delay'])
    expect(await firstSighting(database.db, { key: 'delivery:8|complaint', covers: [] }, T0 + DAY)).toBe(false)
  })
})
