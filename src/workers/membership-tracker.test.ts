// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { DAY, HOUR, insertContacts, insertEmail, NOW, openProjectDb, oneFilter, recordedMembers, segmentChanges, setContactData } from '../../test/helpers/segments.ts'
import { ManualClock } from '../../test/helpers/clock.ts'
import type { Database } from '../db/client.ts'
import type { Db } from '../db/schema.ts'
import { silentLogger } from '../lib/logger.ts'
import { createMembershipTracker } from './membership-tracker.ts'
import { createSegment } from '../core/segments/segments.service.ts'
import { membershipDrift } from '../core/segments/segment-tracking.ts'
import { compileContext } from '../core/segments/membership.ts'
import { findSegment } from '../core/segments/segments.repository.ts'

let database: Database
let db: Db
let projectId: number

beforeEach(async () => {
  ;({ database, db, projectId } = await openProjectDb())
})

afterEach(() => database.close())

const one = oneFilter
const pro = one({ field: 'data.plan', operator: 'equals', value: 'pro' })

/** The contacts of these tests hold a plan and nothing else. */
const setPlan = (id: string, plan: string) => setContactData(db, { plan }, id)
const changes = (segmentId: string) => segmentChanges(db, segmentId)
const recorded = (segmentId: string) => recordedMembers(db, segmentId)

const tracked = (condition: unknown, name = 'Pros') => createSegment(db, projectId, { name, condition, trackMembership: true }, NOW)

describe('the membership tracker', () => {
  let clock: ManualClock
  beforeEach(() => {
    clock = new ManualClock(NOW)
  })
  const tracker = () => createMembershipTracker({ db, write: (work) => work(db), clock, logger: silentLogger })

  test('moves time-based segments as time passes, and leaves the others alone', async () => {
    const [a, b] = await insertContacts(db, projectId, [
      { email: 'a@x.test', createdAt: clock.now() - HOUR, data: { plan: 'free' } },
      { email: 'b@x.test', createdAt: clock.now() - 3 * DAY },
    ])
    const recent = await tracked(one({ field: 'createdAt', operator: 'within', value: 1, unit: 'days' }), 'Recent')
    const pros = await tracked(pro)
    await setPlan(a!, 'pro')
    expect(await recorded(recent.id)).toEqual(['a@x.test'])
    const membership = tracker()
    clock.advance(DAY)
    const context = await compileContext(db, projectId, clock.now())
    expect(await membershipDrift(db, (await findSegment(db, projectId, recent.id))!, context)).toEqual([a!])
    await membership.tick()
    expect(await changes(recent.id)).toEqual(['exit a@x.test'])
    expect(await changes(pros.id)).toEqual([])
    expect(b).toBeDefined()
  })

  test('re-evaluates the contacts whose emails got new events since the last round', async () => {
    const [a, b] = await insertContacts(db, projectId, [
      { email: 'a@x.test', data: { plan: 'free' } },
      { email: 'b@x.test', data: { plan: 'free' } },
    ])
    const segment = await tracked(pro)
    const membership = tracker()
    await insertEmail(db, projectId, a!, [['DELIVERED', NOW]])
    await membership.tick()
    await setPlan(a!, 'pro')
    await setPlan(b!, 'pro')
    await insertEmail(db, projectId, a!, [['OPENED', NOW]])
    await membership.tick()
    expect(await changes(segment.id)).toEqual(['entry a@x.test'])
    await membership.tick()
    expect(await changes(segment.id)).toEqual(['entry a@x.test'])
  })

  test('mail activity enters contacts into segments on email.* fields', async () => {
    const [a] = await insertContacts(db, projectId, [{ email: 'a@x.test' }])
    const openers = await tracked(one({ field: 'email.opened', operator: 'triggered' }), 'Openers')
    const membership = tracker()
    await membership.tick()
    await insertEmail(db, projectId, a!, [['DELIVERED', NOW], ['OPENED', NOW + HOUR]])
    await membership.tick()
    expect(await changes(openers.id)).toEqual(['entry a@x.test'])
  })

  test('runs on its timer once started, and stops', async () => {
    await insertContacts(db, projectId, [{ email: 'a@x.test', createdAt: clock.now() - HOUR }])
    const recent = await tracked(one({ field: 'createdAt', operator: 'within', value: 2, unit: 'hours' }), 'Recent')
    clock.advance(2 * HOUR)
    const membership = createMembershipTracker({ db, write: (work) => work(db), clock, logger: silentLogger, intervalMs: 5 })
    await membership.start()
    for (let i = 0; i < 100 && (await changes(recent.id)).length === 0; i++) await Bun.sleep(5)
    await membership.stop()
    expect(await changes(recent.id)).toEqual(['exit a@x.test'])
  })
})
