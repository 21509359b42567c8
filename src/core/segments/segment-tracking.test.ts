// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { HOUR, insertContacts, NOW, openProjectDb, oneFilter, recordedMembers, segmentChanges, setContactData } from '../../../test/helpers/segments.ts'
import type { Database } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import { addMembers } from './segment-members.service.ts'
import { createSegment, updateSegment } from './segments.service.ts'
import { refreshMemberships, refreshSegment } from './segment-tracking.ts'
import { findSegment } from './segments.repository.ts'

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

describe('refreshMemberships', () => {
  test('does nothing in a project without tracked segments', async () => {
    const [a] = await insertContacts(db, projectId, [{ email: 'a@x.test', data: { plan: 'pro' } }])
    await createSegment(db, projectId, { name: 'Untracked', condition: pro }, NOW)
    await refreshMemberships(db, projectId, [a!], NOW)
    expect(await db.selectFrom('segment_memberships').selectAll().execute()).toEqual([])
    expect(await db.selectFrom('events').selectAll().execute()).toEqual([])
  })

  test('records an entry and then an exit as events, with the segment in the data', async () => {
    const [a] = await insertContacts(db, projectId, [{ email: 'a@x.test', data: { plan: 'free' } }])
    const segment = await tracked(pro)
    await setPlan(a!, 'pro')
    await refreshMemberships(db, projectId, [a!], NOW + HOUR)
    expect(await recorded(segment.id)).toEqual(['a@x.test'])
    const [entry] = await db.selectFrom('events').selectAll().execute()
    expect(entry).toMatchObject({ project_id: projectId, contact_id: a, name: `segment.${segment.id}.entry`, created_at: NOW + HOUR })
    expect(JSON.parse(entry!.data!)).toEqual({ segmentId: segment.id, segmentName: 'Pros' })
    await refreshMemberships(db, projectId, [a!], NOW + 2 * HOUR)
    expect(await changes(segment.id)).toEqual(['entry a@x.test'])
    await setPlan(a!, 'free')
    await refreshMemberships(db, projectId, [a!], NOW + 3 * HOUR)
    expect(await changes(segment.id)).toEqual(['entry a@x.test', 'exit a@x.test'])
    expect(await recorded(segment.id)).toEqual([])
  })

  test('looks at the contacts it is given and no others', async () => {
    const [a, b] = await insertContacts(db, projectId, [
      { email: 'a@x.test', data: { plan: 'free' } },
      { email: 'b@x.test', data: { plan: 'free' } },
    ])
    const segment = await tracked(pro)
    await setPlan(a!, 'pro')
    await setPlan(b!, 'pro')
    await refreshMemberships(db, projectId, [a!], NOW)
    expect(await recorded(segment.id)).toEqual(['a@x.test'])
    await refreshMemberships(db, projectId, [b!, b!], NOW)
    expect(await changes(segment.id)).toEqual(['entry a@x.test', 'entry b@x.test'])
  })

  test('follows every tracked segment of the project, STATIC ones and those naming other segments too', async () => {
    const [a] = await insertContacts(db, projectId, [{ email: 'a@x.test', data: { plan: 'pro' } }])
    const vips = await createSegment(db, projectId, { name: 'VIPs', type: 'STATIC', trackMembership: true }, NOW)
    const pros = await createSegment(db, projectId, { name: 'Pros', condition: pro }, NOW)
    const proVips = await tracked(
      { logic: 'AND', groups: [{ filters: [{ field: `segment.${pros.id}`, operator: 'memberOfSegment' }, { field: `segment.${vips.id}`, operator: 'memberOfSegment' }] }] },
      'Pro VIPs',
    )
    await addMembers(db, projectId, vips.id, { contactIds: [a!] }, NOW)
    expect(await changes(vips.id)).toEqual(['entry a@x.test'])
    expect(await changes(proVips.id)).toEqual(['entry a@x.test'])
  })

  test('ignores other projects’ contacts named by mistake', async () => {
    const other = await db
      .insertInto('projects')
      .values({ name: 'Other', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: NOW, updated_at: NOW })
      .returning('id')
      .executeTakeFirstOrThrow()
    const [stranger] = await insertContacts(db, other.id, [{ email: 's@x.test', data: { plan: 'pro' } }])
    const segment = await tracked(pro)
    await refreshMemberships(db, projectId, [stranger!], NOW)
    expect(await recorded(segment.id)).toEqual([])
  })
})

describe('refreshSegment', () => {
  test('turning tracking on records the members now without entry events', async () => {
    await insertContacts(db, projectId, [
      { email: 'a@x.test', data: { plan: 'pro' } },
      { email: 'b@x.test', data: { plan: 'free' } },
    ])
    const segment = await createSegment(db, projectId, { name: 'Pros', condition: pro }, NOW)
    await updateSegment(db, projectId, segment.id, { trackMembership: true }, NOW)
    expect(await recorded(segment.id)).toEqual(['a@x.test'])
    expect(await changes(segment.id)).toEqual([])
  })

  test('a new condition records its differences as entries and exits', async () => {
    await insertContacts(db, projectId, [
      { email: 'a@x.test', data: { plan: 'pro' } },
      { email: 'b@x.test', data: { plan: 'free' } },
    ])
    const segment = await tracked(pro)
    await updateSegment(db, projectId, segment.id, { condition: one({ field: 'data.plan', operator: 'equals', value: 'free' }) }, NOW + HOUR)
    expect(await changes(segment.id)).toEqual(['exit a@x.test', 'entry b@x.test'])
    expect(await recorded(segment.id)).toEqual(['b@x.test'])
  })

  test('a new condition moves the tracked segments that name it too', async () => {
    await insertContacts(db, projectId, [{ email: 'a@x.test', data: { plan: 'pro' } }])
    const pros = await createSegment(db, projectId, { name: 'Pros', condition: pro }, NOW)
    const outer = await tracked(one({ field: `segment.${pros.id}`, operator: 'memberOfSegment' }), 'Outer')
    expect(await recorded(outer.id)).toEqual(['a@x.test'])
    await updateSegment(db, projectId, pros.id, { condition: one({ field: 'data.plan', operator: 'equals', value: 'team' }) }, NOW + HOUR)
    expect(await changes(outer.id)).toEqual(['exit a@x.test'])
  })

  test('turning tracking off forgets the recorded members', async () => {
    await insertContacts(db, projectId, [{ email: 'a@x.test', data: { plan: 'pro' } }])
    const segment = await tracked(pro)
    await updateSegment(db, projectId, segment.id, { trackMembership: false }, NOW)
    expect(await recorded(segment.id)).toEqual([])
  })

  test('writes thousands of entries in parts', async () => {
    await insertContacts(db, projectId, Array.from({ length: 4500 }, (_, i) => ({ email: `u${i}@x.test`, data: { plan: 'free' } })))
    const segment = await tracked(pro)
    await setContactData(db, { plan: 'pro' })
    await refreshSegment(db, (await findSegment(db, projectId, segment.id))!, NOW)
    const { n } = await db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(Number(n)).toBe(4500)
    expect(await recorded(segment.id)).toHaveLength(4500)
  })
})
