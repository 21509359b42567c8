// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import type { ReceivedOutcome } from '../../db/schema.ts'
import { listReports, recordReport, REPORTS_KEPT, type ReceivedReport } from './received-reports.repository.ts'

let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
})

afterAll(() => database.close())

const report = (outcome: ReceivedOutcome, subject: string): ReceivedReport => ({
  receivedAt: Date.UTC(2025, 0, 1),
  remoteAddress: '192.0.2.1',
  mailFrom: '',
  rcptTo: ['fbl@mx.example'],
  kind: 'arf',
  subject,
  messageId: null,
  outcome,
  reason: null,
  verdicts: [],
  raw: new Uint8Array(16),
})

/** Rows as recordReport writes them, written in one statement: filling a log to its cap one report at a time is slow. */
async function fill(outcome: ReceivedOutcome, count: number) {
  const row = { received_at: 0, remote_address: null, mail_from: '', rcpt_to: '[]', kind: 'other', subject: 'fill', message_id: null, outcome, reason: null, verdicts: '[]', raw: new Uint8Array(1), raw_size: 1 }
  for (let done = 0; done < count; done += 1000) {
    await database.db.insertInto('received_reports').values(Array.from({ length: Math.min(1000, count - done) }, () => row)).execute()
  }
}

const count = async (outcome: ReceivedOutcome) =>
  Number((await database.db.selectFrom('received_reports').select((eb) => eb.fn.countAll<number>().as('n')).where('outcome', '=', outcome).executeTakeFirstOrThrow()).n)

describe('the report log keeps a number of each outcome', () => {
  test('applied reports are kept longest', () => {
    const { applied, ...others } = REPORTS_KEPT
    expect(Object.values(others).every((cap) => cap < applied)).toBe(true)
  })

  test('a flood of untrusted reports past its cap forgets the oldest untrusted ones, never an applied one', async () => {
    await recordReport(database.db, report('applied', 'the real bounce'))
    await fill('untrusted', REPORTS_KEPT.untrusted)
    for (let i = 0; i < 5; i++) await recordReport(database.db, report('untrusted', `junk ${i}`))
    expect(await count('untrusted')).toBe(REPORTS_KEPT.untrusted)
    expect((await listReports(database.db, { limit: 5, outcome: 'untrusted' })).map((r) => r.subject)).toEqual(['junk 4', 'junk 3', 'junk 2', 'junk 1', 'junk 0'])
    expect((await listReports(database.db, { limit: 10, outcome: 'applied' })).map((r) => r.subject)).toEqual(['the real bounce'])
  })

  test.each(['duplicate', 'ignored'] as const)('%s reports have their own cap, and push out neither applied nor untrusted ones', async (outcome) => {
    const before = { applied: await count('applied'), untrusted: await count('untrusted') }
    await fill(outcome, REPORTS_KEPT[outcome] + 10)
    await recordReport(database.db, report(outcome, 'the newest'))
    expect(await count(outcome)).toBe(REPORTS_KEPT[outcome])
    expect((await listReports(database.db, { limit: 1, outcome }))[0]!.subject).toBe('the newest')
    expect({ applied: await count('applied'), untrusted: await count('untrusted') }).toEqual(before)
  })

  test('applied reports past their cap forget the oldest applied ones', async () => {
    await fill('applied', REPORTS_KEPT.applied)
    const started = performance.now()
    await recordReport(database.db, report('applied', 'the newest bounce'))
    const took = performance.now() - started
    expect(await count('applied')).toBe(REPORTS_KEPT.applied)
    expect((await listReports(database.db, { limit: REPORTS_KEPT.applied, outcome: 'applied' })).map((r) => r.subject)).not.toContain('the real bounce')
    // The cap is found through the (outcome, id) index: a generous bound, not a benchmark.
    expect(took).toBeLessThan(1000)
  })
})
