// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../test/helpers/clock.ts'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import { silentLogger } from '../../lib/logger.ts'
import type { Settlement } from '../attempt.ts'
import { parseReply } from '../classify.ts'
import { DEFAULT_AUTOMATION } from './rules.ts'
import { createShaper } from './shaper.ts'
import { createShapingBookkeeping } from './shaping-bookkeeping.ts'

const HOUR = 3_600_000
const limits = { connections: 4, messagesPerConnection: 100, messagesPerMinute: null }
let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
})

afterAll(() => database.close())

function bookkeeping(clock = new ManualClock()) {
  const shaper = createShaper({ clock, logger: silentLogger, rules: [], automation: DEFAULT_AUTOMATION, settings: { defaults: limits, warmup: { on: false, schedule: [] } } })
  const book = createShapingBookkeeping({ db: database.db, write: (work) => database.db.transaction().execute(work), clock, logger: silentLogger, shaper })
  return { shaper, book, clock }
}

const replied = (kind: 'bounced' | 'deferred', line: string): Settlement =>
  kind === 'bounced'
    ? { kind, data: { startedAt: 0, reply: parseReply(Number(line.slice(0, 3)), line), response: line }, category: 'policy', hard: true }
    : { kind, data: { startedAt: 0, reply: parseReply(Number(line.slice(0, 3)), line), response: line }, nextAttemptAt: 1, category: 'other' }

describe('the sites\' shaping bookkeeping', () => {
  test('a reply that suspends its site defers the message until the suspension ends, never bounces it', () => {
    const { shaper, book, clock } = bookkeeping()
    const site = shaper.know({ name: 'mx.blocked.example', mxHosts: ['mx.blocked.example'] })
    const outcome = book.outcome(site, replied('bounced', '554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org'))
    expect(outcome).toMatchObject({ kind: 'deferred', category: 'suspended', held: true, nextAttemptAt: clock.now() + 2 * HOUR })
    expect(shaper.hold(site)?.category).toBe('suspended')
  })

  test('a reply that only throttles, or none that automation knows, leaves the outcome as it was', () => {
    const { shaper, book } = bookkeeping()
    const site = shaper.know({ name: 'mx.slow.example', mxHosts: ['mx.slow.example'] })
    const throttled = replied('deferred', '421 4.7.28 rate limited, try again later')
    expect(book.outcome(site, throttled)).toBe(throttled)
    expect(shaper.limits(site).connections).toBe(2)
    const unknown = replied('bounced', '550 5.1.1 no such user')
    expect(book.outcome(site, unknown)).toBe(unknown)
  })

  test('what changed is written down at a flush (the sites, and the domains found to go to them) and taken back at the start', async () => {
    const { shaper, book, clock } = bookkeeping()
    const site = shaper.know({ name: 'mx.kept.example', mxHosts: ['mx.kept.example'] })
    book.outcome(site, { kind: 'delivered', data: { startedAt: 0 } })
    book.found('kept.example', site)
    await book.flush()
    const row = await database.db.selectFrom('delivery_sites').selectAll().where('name', '=', site).executeTakeFirstOrThrow()
    expect(Number(row.first_delivery_at)).toBe(clock.now())
    const domain = await database.db.selectFrom('delivery_site_domains').selectAll().where('domain', '=', 'kept.example').executeTakeFirstOrThrow()
    expect(domain.site).toBe(site)
    // Nothing changed since: nothing to write.
    expect(shaper.flush()).toEqual([])

    // A new process: the site is known only from what was written (an unknown site would throw).
    const later = bookkeeping(clock)
    await later.book.restore()
    later.book.outcome(site, { kind: 'delivered', data: { startedAt: 0 } })
    expect(later.shaper.flush()).toEqual([])
  })
})
