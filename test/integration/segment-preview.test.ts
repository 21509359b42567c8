// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addMember } from '../../src/core/accounts/members.service.ts'
import { makeAccount, signIn, type Browser } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

/*
 * POST /segments/preview: the live count of the console's segment builder. It checks a condition
 * as POST /segments does, counts it as a saved segment is counted, and writes nothing, so every
 * role (and a read key) may call it.
 */

let t: TestApp
let project: { id: number; secretKey: string; publicKey: string }
let viewer: Browser
const clock = new ManualClock()

const call = (method: string, path: string, body?: unknown, key = project.secretKey) => t.request(method, path, { key, body })
const preview = (condition: unknown, key = project.secretKey) => call('POST', '/segments/preview', { condition }, key)
const group = (...filters: object[]) => ({ logic: 'AND', groups: [{ filters }] })

beforeAll(async () => {
  t = await createTestApp({}, { clock })
  project = await t.project()
  await makeAccount(t, 'owner@example.com') // the first account owns the projects made before it
  const account = await makeAccount(t, 'viewer@example.com')
  await t.app.writer.run((trx) => addMember(trx, project.id, account.id, 'viewer', clock.now()))
  viewer = await signIn(t, 'viewer@example.com')
  for (let i = 0; i < 14; i++) {
    const plan = i % 2 === 0 ? 'pro' : 'free'
    expect((await call('POST', '/contacts', { email: `p${String(i).padStart(2, '0')}@example.com`, data: { plan, seats: i } })).status).toBe(201)
    clock.advance(1000)
  }
  for (const email of ['p00@example.com', 'p01@example.com', 'p02@example.com']) {
    expect((await call('POST', '/v1/track', { email, event: 'signup' }, project.publicKey)).status).toBe(200)
  }
})

afterAll(() => t.close())

describe('the count of an unsaved condition', () => {
  test('equals the member count of a segment saved with the same condition, with the newest ten members', async () => {
    const conditions = [
      group({ field: 'data.plan', operator: 'equals', value: 'pro' }),
      group({ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'data.seats', operator: 'gt', value: 4 }),
      group({ field: 'event.signup', operator: 'triggeredWithin', value: 7, unit: 'days' }),
      { logic: 'OR', groups: [{ filters: [{ field: 'email', operator: 'startsWith', value: 'p1' }] }, { filters: [], conditions: group({ field: 'event.signup', operator: 'triggered' }) }] },
    ]
    for (const condition of conditions) {
      const answer = await preview(condition)
      expect(answer.status).toBe(200)
      const saved = await call('POST', '/segments', { name: 'Same', condition })
      expect(saved.status).toBe(201)
      expect(answer.body.count).toBe(saved.body.memberCount)
      const members = await call('GET', `/segments/${saved.body.id}/contacts?pageSize=10`)
      expect(answer.body.contacts).toEqual(members.body.contacts.map((c: { id: string; email: string; subscribed: boolean }) => ({ id: c.id, email: c.email, subscribed: c.subscribed })))
    }
    const pro = await preview(conditions[0])
    expect(pro.body.count).toBe(7)
    expect(pro.body.contacts.map((c: { email: string }) => c.email)).toEqual(['p12@example.com', 'p10@example.com', 'p08@example.com', 'p06@example.com', 'p04@example.com', 'p02@example.com', 'p00@example.com'])
  })

  test('names a segment in the condition by id, and counts none when nobody matches', async () => {
    const pro = await call('POST', '/segments', { name: 'Pro', condition: group({ field: 'data.plan', operator: 'equals', value: 'pro' }) })
    const answer = await preview(group({ field: `segment.${pro.body.id}`, operator: 'memberOfSegment' }, { field: 'event.signup', operator: 'triggered' }))
    expect(answer.body).toEqual({ count: 2, contacts: [expect.objectContaining({ email: 'p02@example.com', subscribed: true }), expect.objectContaining({ email: 'p00@example.com' })] })
    expect((await preview(group({ field: 'email', operator: 'equals', value: 'nobody@example.com' }))).body).toEqual({ count: 0, contacts: [] })
  })
})

describe('a bad condition', () => {
  test('is refused with the error, field and suggestion creating a segment gets', async () => {
    const bad = [
      group({ field: 'data.plan', operator: 'triggered' }),
      group({ field: 'event.signup', operator: 'triggeredWithin', value: 3, unit: 'fortnights' }),
      group({ field: 'segment.nope', operator: 'memberOfSegment' }),
      group({ field: 'colour', operator: 'equals', value: 'red' }),
      { logic: 'AND', groups: [] },
      group(...Array.from({ length: 51 }, () => ({ field: 'email', operator: 'contains', value: 'x' }))),
    ]
    const fields: string[] = []
    for (const condition of bad) {
      const answer = await preview(condition)
      const created = await call('POST', '/segments', { name: 'Bad', condition })
      expect(answer.status).toBe(422)
      expect({ ...answer.body, requestId: '' }).toEqual({ ...created.body, requestId: '' })
      fields.push(answer.body.errors[0].field)
    }
    expect(fields).toEqual([
      'condition.groups[0].filters[0].operator',
      'condition.groups[0].filters[0].unit',
      'condition.groups[0].filters[0].field',
      'condition.groups[0].filters[0].field',
      'condition.groups',
      'condition.groups[0].filters',
    ])
  })

  test('without a condition, or with other keys, is refused', async () => {
    expect((await call('POST', '/segments/preview', {})).status).toBe(422)
    expect((await call('POST', '/segments/preview', { condition: group({ field: 'email', operator: 'exists' }), name: 'x' })).status).toBe(422)
  })
})

describe('who may preview', () => {
  test('a viewer may preview and may not save; a read key may preview; nothing is written', async () => {
    const before = (await call('GET', '/segments')).body.length
    const condition = group({ field: 'data.plan', operator: 'equals', value: 'free' })
    const asViewer = await t.request('POST', '/segments/preview', { headers: viewer.headers({ project: project.id }), body: { condition } })
    expect(asViewer.status).toBe(200)
    expect(asViewer.body.count).toBe(7)
    const save = await t.request('POST', '/segments', { headers: viewer.headers({ project: project.id }), body: { name: 'No', condition } })
    expect(save.status).toBe(403)
    const key = await call('POST', '/api/v1/keys', { name: 'Dashboard', scope: 'read' })
    expect((await preview(condition, key.body.key)).body.count).toBe(7)
    expect((await call('POST', '/segments', { name: 'No', condition }, key.body.key)).status).toBe(403)
    expect((await call('GET', '/segments')).body.length).toBe(before)
  })

  test('without a key it is a 401, and another project counts its own contacts', async () => {
    expect((await t.request('POST', '/segments/preview', { body: { condition: group({ field: 'email', operator: 'contains', value: 'p' }) } })).status).toBe(401)
    const other = await t.project('Other')
    expect((await preview(group({ field: 'email', operator: 'contains', value: 'p' }), other.secretKey)).body).toEqual({ count: 0, contacts: [] })
  })
})
