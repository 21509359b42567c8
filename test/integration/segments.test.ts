// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

let t: TestApp
let project: { id: number; secretKey: string; publicKey: string }
const clock = new ManualClock()
const DAY = 86_400_000

beforeAll(async () => {
  t = await createTestApp({}, { clock })
  project = await t.project()
})

afterAll(() => t.close())

const call = (method: string, path: string, body?: unknown, key = project.secretKey) => t.request(method, path, { key, body })
const one = (filter: object) => ({ logic: 'AND', groups: [{ filters: [filter] }] })
const plan = (value: string) => one({ field: 'data.plan', operator: 'equals', value })

async function segment(body: Record<string, unknown>, key = project.secretKey) {
  const response = await call('POST', '/segments', body, key)
  expect(response.status).toBe(201)
  return response.body
}

const contact = async (email: string, data: Record<string, unknown> = {}, key = project.secretKey) => (await call('POST', '/contacts', { email, data }, key)).body
const count = async (id: string) => (await call('GET', `/segments/${id}`)).body.memberCount

/** The segment events recorded for a segment, as `<entry|exit> <email>` in order. */
async function changes(segmentId: string): Promise<string[]> {
  const rows = await t.app.db
    .selectFrom('events as e')
    .innerJoin('contacts as c', 'c.id', 'e.contact_id')
    .select(['e.name', 'c.email', 'e.data'])
    .where('e.name', 'like', `segment.${segmentId}.%`)
    .orderBy('e.id')
    .execute()
  return rows.map((row) => `${row.name.slice(`segment.${segmentId}.`.length)} ${row.email}`)
}

describe('segments: create, read, update, delete', () => {
  test('a DYNAMIC segment answers with the Segment, its condition shown in full and its member count', async () => {
    await contact('crud-a@example.com', { plan: 'pro' })
    await contact('crud-b@example.com', { plan: 'free' })
    const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'email', operator: 'startsWith', value: 'crud-' }] }] }
    const created = await segment({ name: 'Pro users', description: 'Paying', condition })
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Pro users',
      description: 'Paying',
      type: 'DYNAMIC',
      condition: { logic: 'AND', groups: [{ filters: condition.groups[0]!.filters, conditions: null }] },
      trackMembership: false,
      memberCount: 1,
      projectId: String(project.id),
      createdAt: new Date(clock.now()).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
    })
    expect((await call('GET', `/segments/${created.id}`)).body).toEqual(created)
    const list = await call('GET', '/segments')
    expect(list.status).toBe(200)
    expect(list.body).toContainEqual(created)

    clock.advance(1000)
    const patched = await call('PATCH', `/segments/${created.id}`, { name: 'Pros', description: null, condition: one({ field: 'email', operator: 'startsWith', value: 'crud-' }) })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ name: 'Pros', description: null, memberCount: 2, updatedAt: new Date(clock.now()).toISOString(), createdAt: created.createdAt })

    const deleted = await call('DELETE', `/segments/${created.id}`)
    expect(deleted.body).toEqual({ id: created.id, success: true, message: 'Segment deleted' })
    expect((await call('GET', `/segments/${created.id}`)).status).toBe(404)
    expect((await call('DELETE', `/segments/${created.id}`)).status).toBe(404)
  })

  test('memberCount follows contacts as they are created, tracked and changed', async () => {
    const created = await segment({ name: 'Teams', condition: plan('team') })
    expect(created.memberCount).toBe(0)
    const a = await contact('count-a@example.com', { plan: 'team' })
    await call('POST', '/v1/track', { email: 'count-b@example.com', event: 'signup', data: { plan: 'Team' } })
    expect(await count(created.id)).toBe(2)
    await call('PATCH', `/contacts/${a.id}`, { data: { plan: 'free' } })
    expect(await count(created.id)).toBe(1)
    await call('DELETE', `/contacts/${a.id}`)
    await call('POST', '/v1/track', { email: 'count-b@example.com', event: 'downgrade', data: { plan: null } })
    expect(await count(created.id)).toBe(0)
  })

  test('the Plunk form of the condition is accepted and answered in the short form', async () => {
    const created = await segment({ name: 'Older', condition: one({ field: 'data.age', operator: 'greaterThanOrEqual', value: 30 }) })
    expect(created.condition.groups[0].filters).toEqual([{ field: 'data.age', operator: 'gte', value: 30 }])
  })

  test.each([
    ['no name', { condition: plan('x') }, 'name'],
    ['an empty name', { name: ' ', condition: plan('x') }, 'name'],
    ['an unknown field in the body', { name: 'x', condition: plan('x'), color: 'red' }, 'color'],
    ['a DYNAMIC segment without a condition', { name: 'x' }, 'condition'],
    ['a STATIC segment with a condition', { name: 'x', type: 'STATIC', condition: plan('x') }, 'condition'],
    ['an unknown type', { name: 'x', type: 'SMART', condition: plan('x') }, 'type'],
  ])('%s is a 422 naming the field', async (_, body, field) => {
    const response = await call('POST', '/segments', body)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
  })
})

describe('segments: conditions that are refused', () => {
  const nested = (depth: number): unknown => (depth === 1 ? plan('x') : { logic: 'OR', groups: [{ filters: [], conditions: nested(depth - 1) }] })

  test.each([
    ['nested 11 deep', nested(11), 'condition' + '.groups[0].conditions'.repeat(10), 'at most 10 levels'],
    ['nested 100 deep, past what any body may hold', nested(100), 'condition', 'is nested more than 64 levels deep'],
    ['an unknown field', one({ field: 'firstName', operator: 'equals', value: 'x' }), 'condition.groups[0].filters[0].field', 'must be email'],
    ['an unknown operator', one({ field: 'email', operator: 'matches', value: 'x' }), 'condition.groups[0].filters[0].operator', 'Choose one of these for operator'],
    ['an operator of another field', one({ field: 'subscribed', operator: 'within', value: 1, unit: 'days' }), 'condition.groups[0].filters[0].operator', 'does not apply'],
    ['within without a unit', one({ field: 'createdAt', operator: 'within', value: 7 }), 'condition.groups[0].filters[0].unit', 'is required'],
    ['a string for a boolean', one({ field: 'subscribed', operator: 'equals', value: 'yes' }), 'condition.groups[0].filters[0].value', 'true or false'],
    ['an object for a data value', one({ field: 'data.plan', operator: 'equals', value: { a: 1 } }), 'condition.groups[0].filters[0].value', 'a string'],
    ['a word for a number', one({ field: 'data.age', operator: 'lt', value: 'ten' }), 'condition.groups[0].filters[0].value', 'a number or an ISO 8601 date'],
    ['a segment that does not exist', one({ field: 'segment.nope', operator: 'memberOfSegment' }), 'condition.groups[0].filters[0].field', 'no segment nope'],
    ['a condition that is a list', [plan('x')], 'condition', 'must be an object'],
  ])('%s is a 422 naming the node', async (_, condition, field, message) => {
    const response = await call('POST', '/segments', { name: 'Bad', condition })
    expect(response.status).toBe(422)
    expect(response.body.code).toBe('VALIDATION_ERROR')
    expect(response.body.errors[0].field).toBe(field)
    expect(response.body.errors[0].message).toContain(message)
  })

  test('a segment that names itself, directly or through another, is a 422 and changes nothing', async () => {
    const a = await segment({ name: 'A', condition: plan('a') })
    const b = await segment({ name: 'B', condition: one({ field: `segment.${a.id}`, operator: 'memberOfSegment' }) })
    for (const [id, names] of [
      [a.id, a.id],
      [a.id, b.id],
    ]) {
      const response = await call('PATCH', `/segments/${id}`, { condition: one({ field: 'segment', operator: 'notMemberOfSegment', value: names }) })
      expect(response.status).toBe(422)
      expect(response.body.errors[0]).toMatchObject({ field: 'condition.groups[0].filters[0].field', message: 'A segment cannot refer to itself, directly or through other segments.' })
    }
    expect((await call('GET', `/segments/${a.id}`)).body.condition).toEqual(a.condition)
  })

  test('a segment named by another cannot be deleted (409) until that one lets go of it', async () => {
    const inner = await segment({ name: 'Inner', condition: plan('inner') })
    const outer = await segment({ name: 'Outer', condition: one({ field: `segment.${inner.id}`, operator: 'memberOfSegment' }) })
    const refused = await call('DELETE', `/segments/${inner.id}`)
    expect(refused.status).toBe(409)
    expect(refused.body.message).toContain(outer.id)
    await call('PATCH', `/segments/${outer.id}`, { condition: plan('outer') })
    expect((await call('DELETE', `/segments/${inner.id}`)).status).toBe(200)
  })

  test('a STATIC segment takes no condition in a PATCH', async () => {
    const listed = await segment({ name: 'Listed', type: 'STATIC' })
    const response = await call('PATCH', `/segments/${listed.id}`, { condition: plan('x') })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe('condition')
  })
})

describe('segments: contacts, paged', () => {
  let id: string
  let pagingKey: string

  beforeAll(async () => {
    pagingKey = (await t.project('Paging')).secretKey
    for (let i = 0; i < 25; i++) await contact(`page${i}@example.com`, { n: i }, pagingKey)
    id = (await segment({ name: 'Some', condition: one({ field: 'data.n', operator: 'lt', value: 23 }) }, pagingKey)).id
  })
  const page = (query: string) => t.request('GET', `/segments/${id}/contacts${query}`, { key: pagingKey })

  test('pages of 20 by default, newest first, with the total', async () => {
    const first = await page('')
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ page: 1, pageSize: 20, total: 23 })
    expect(first.body.contacts).toHaveLength(20)
    expect(first.body.contacts[0]).toMatchObject({ email: 'page22@example.com', data: { n: 22 }, subscribed: true })
    const second = await page('?page=2')
    expect(second.body.contacts.map((c: any) => c.email)).toEqual(['page2@example.com', 'page1@example.com', 'page0@example.com'])
  })

  test('pageSize picks the size, up to 100', async () => {
    const response = await page('?page=3&pageSize=10')
    expect(response.body).toMatchObject({ page: 3, pageSize: 10, total: 23 })
    expect(response.body.contacts).toHaveLength(3)
    expect((await page('?pageSize=100')).body.contacts).toHaveLength(23)
  })

  test.each(['?pageSize=101', '?pageSize=0', '?page=0', '?page=x'])('%s is a 422', async (query) => {
    expect((await page(query)).status).toBe(422)
  })
})

describe('segments: STATIC members', () => {
  test('are listed by contact id and by email (a new email becomes a contact), and taken off again', async () => {
    const listed = await segment({ name: 'Hand-picked', type: 'STATIC' })
    expect(listed).toMatchObject({ type: 'STATIC', condition: null, memberCount: 0 })
    const a = await contact('static-a@example.com')
    const added = await call('POST', `/segments/${listed.id}/members`, { contactIds: [a.id], emails: ['Static-New@Example.com', 'static-a@example.com'] })
    expect(added.status).toBe(200)
    expect(added.body.memberCount).toBe(2)
    const members = (await call('GET', `/segments/${listed.id}/contacts`)).body.contacts.map((c: any) => c.email).sort()
    expect(members).toEqual(['Static-New@Example.com', 'static-a@example.com'])
    expect((await call('POST', `/segments/${listed.id}/members`, { contactIds: [a.id] })).body.memberCount).toBe(2)
    const removed = await call('DELETE', `/segments/${listed.id}/members`, { emails: ['STATIC-NEW@example.com', 'nobody@example.com'] })
    expect(removed.body.memberCount).toBe(1)
    const contacts = await call('GET', '/contacts?search=static-new')
    expect(contacts.body.total).toBe(1)
  })

  test.each([
    ['an unknown contact id', { contactIds: ['0190f0d8-0000-7000-8000-000000000000'] }, 'contactIds[0]'],
    ['a bad email', { emails: ['ok@example.com', 'not an email'] }, 'emails[1]'],
    ['nothing to add', {}, 'body'],
    ['an unknown field', { ids: [] }, 'ids'],
  ])('%s is a 422 and adds nobody', async (_, body, field) => {
    const listed = await segment({ name: 'Strict', type: 'STATIC' })
    const response = await call('POST', `/segments/${listed.id}/members`, body)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
    expect(await count(listed.id)).toBe(0)
    expect((await call('GET', '/contacts?search=ok@example.com')).body.total).toBe(0)
  })

  test('a DYNAMIC segment has no listed members (409)', async () => {
    const dynamic = await segment({ name: 'Dyn', condition: plan('x') })
    expect((await call('POST', `/segments/${dynamic.id}/members`, { emails: ['x@example.com'] })).status).toBe(409)
  })

  test("another project's contact cannot be listed", async () => {
    const other = await t.project('Other members')
    const stranger = await contact('stranger@example.com', {}, other.secretKey)
    const listed = await segment({ name: 'Mine', type: 'STATIC' })
    const response = await call('POST', `/segments/${listed.id}/members`, { contactIds: [stranger.id] })
    expect(response.status).toBe(422)
  })
})

describe('segments: keys and other projects', () => {
  test.each([
    ['GET', '/segments/unknown'],
    ['PATCH', '/segments/unknown'],
    ['DELETE', '/segments/unknown'],
    ['GET', '/segments/unknown/contacts'],
    ['POST', '/segments/unknown/members'],
  ])('%s %s is a 404', async (method, path) => {
    const body = method === 'PATCH' ? { name: 'x' } : method === 'POST' ? { emails: ['a@example.com'] } : undefined
    expect((await call(method, path, body)).status).toBe(404)
  })

  test("another project's segment is a 404", async () => {
    const other = await t.project('Other')
    const theirs = await segment({ name: 'Theirs', condition: plan('x') }, other.secretKey)
    expect((await call('GET', `/segments/${theirs.id}`)).status).toBe(404)
    expect((await call('DELETE', `/segments/${theirs.id}`)).status).toBe(404)
    expect((await call('GET', '/segments')).body.map((s: any) => s.id)).not.toContain(theirs.id)
  })

  test.each([
    ['GET', '/segments'],
    ['POST', '/segments'],
  ])('a public key on %s %s is a 403, no key a 401', async (method, path) => {
    const body = method === 'POST' ? { name: 'x', condition: plan('x') } : undefined
    expect((await call(method, path, body, project.publicKey)).status).toBe(403)
    expect((await t.request(method, path, { body })).status).toBe(401)
  })
})

describe('segments: membership tracking', () => {
  test('turning tracking on records the members now without events; later changes are entries and exits', async () => {
    const first = await contact('track-a@example.com', { plan: 'gold' })
    const tracked = await segment({ name: 'Gold', condition: plan('gold'), trackMembership: true })
    expect(tracked.trackMembership).toBe(true)
    expect(await changes(tracked.id)).toEqual([])

    await call('POST', '/v1/track', { email: 'track-b@example.com', event: 'upgrade', data: { plan: 'gold' } }, project.publicKey)
    await call('PATCH', `/contacts/${first.id}`, { data: { plan: 'silver' } })
    await call('POST', '/contacts', { email: 'track-c@example.com', data: { plan: 'GOLD' } })
    expect(await changes(tracked.id)).toEqual(['entry track-b@example.com', 'exit track-a@example.com', 'entry track-c@example.com'])

    const [event] = await t.app.db.selectFrom('events').selectAll().where('name', '=', `segment.${tracked.id}.entry`).execute()
    expect(JSON.parse(event!.data!)).toEqual({ segmentId: tracked.id, segmentName: 'Gold' })
  })

  test('a new condition of a tracked segment enters and exits contacts', async () => {
    await contact('cond-a@example.com', { tier: 1 })
    await contact('cond-b@example.com', { tier: 2 })
    const tracked = await segment({ name: 'Tier 1', condition: one({ field: 'data.tier', operator: 'equals', value: 1 }), trackMembership: true })
    await call('PATCH', `/segments/${tracked.id}`, { condition: one({ field: 'data.tier', operator: 'gte', value: 2 }) })
    expect(await changes(tracked.id)).toEqual(['exit cond-a@example.com', 'entry cond-b@example.com'])
  })

  test('tracked events enter contacts into segments on events', async () => {
    const tracked = await segment({ name: 'Buyers', condition: one({ field: 'event.purchase', operator: 'triggered' }), trackMembership: true })
    await call('POST', '/v1/track', { email: 'buyer@example.com', event: 'purchase' })
    await call('POST', '/v1/track', { email: 'buyer@example.com', event: 'purchase' })
    expect(await changes(tracked.id)).toEqual(['entry buyer@example.com'])
  })

  test('STATIC segments are tracked as members are added and removed', async () => {
    const listed = await segment({ name: 'Tracked list', type: 'STATIC', trackMembership: true })
    await call('POST', `/segments/${listed.id}/members`, { emails: ['listed@example.com'] })
    await call('DELETE', `/segments/${listed.id}/members`, { emails: ['listed@example.com'] })
    expect(await changes(listed.id)).toEqual(['entry listed@example.com', 'exit listed@example.com'])
  })

  test('after time passes, the timer moves contacts out of time-based segments', async () => {
    const tracked = await segment({ name: 'Active', condition: one({ field: 'event.login', operator: 'triggeredWithin', value: 1, unit: 'days' }), trackMembership: true })
    await call('POST', '/v1/track', { email: 'active@example.com', event: 'login' })
    expect(await changes(tracked.id)).toEqual(['entry active@example.com'])
    clock.advance(12 * 3_600_000)
    await t.app.memberships.tick()
    expect(await changes(tracked.id)).toEqual(['entry active@example.com'])
    clock.advance(DAY)
    await t.app.memberships.tick()
    expect(await changes(tracked.id)).toEqual(['entry active@example.com', 'exit active@example.com'])
    expect(await count(tracked.id)).toBe(0)
  })

  test('segment.* event names are the system’s: tracking one by hand is a 422', async () => {
    expect((await call('POST', '/v1/track', { email: 'x@example.com', event: 'segment.abc.entry' })).status).toBe(422)
  })
})
