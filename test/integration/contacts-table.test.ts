// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { browserOf, makeAccount, PASSWORD, signIn, type Browser } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

/*
 * The contacts table through HTTP: GET /contacts filtered by a segment condition and paged by
 * cursor, the bulk actions on ids and on a filter, who may delete in bulk, and the CSV export.
 */

checkAnswersAgainstDocument()

let t: TestApp
let key: string
let projectId: number
const people: Record<'admin' | 'member' | 'viewer', Browser> = {} as never

const plan = (i: number) => (i % 3 === 0 ? 'pro' : 'free')
const condition = (field: string, operator: string, value?: unknown) => ({ logic: 'AND', groups: [{ filters: [{ field, operator, ...(value !== undefined && { value }) }] }] })
const q = (c: unknown) => encodeURIComponent(JSON.stringify(c))

async function seed(prefix: string, count: number, data: (i: number) => Record<string, unknown> = () => ({})) {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const created = await t.request('POST', '/contacts', { key, body: { email: `${prefix}${String(i).padStart(2, '0')}@example.com`, data: data(i) } })
    expect(created.status).toBe(201)
    ids.push(created.body.id)
  }
  return ids
}

/** Every contact a listing gives, following its cursors page by page. */
async function allPages(query: string, limit = 4) {
  const seen: any[] = []
  let cursor: string | null = null
  let first = true
  do {
    const page = await t.request('GET', `/contacts?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`, { key })
    expect(page.status).toBe(200)
    if (first) expect(page.body.total).toBeNumber()
    else expect(page.body).not.toHaveProperty('total')
    first = false
    seen.push(...page.body.contacts)
    cursor = page.body.cursor
  } while (cursor)
  return seen
}

beforeAll(async () => {
  t = await createTestApp()
  await makeAccount(t, 'owner@example.com')
  const owner = await signIn(t, 'owner@example.com')
  const created = await t.request('POST', '/api/v1/account/projects', { headers: owner.headers(), body: { name: 'Shop' } })
  projectId = created.body.id
  key = created.body.secretKey
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const invited = await t.request('POST', '/api/v1/project/invitations', { headers: owner.headers({ project: projectId }), body: { email: `${role}@example.com`, role } })
    const token = new URL(invited.body.link).searchParams.get('token')!
    people[role] = browserOf(await t.request('POST', '/api/v1/invitations/accept', { body: { token, password: PASSWORD } }))
  }
  await seed('p', 30, (i) => ({ plan: plan(i), n: i }))
})

afterAll(() => t.close())

describe('GET /contacts with a condition', () => {
  test('a data field narrows the list and its total, with the search and the subscription', async () => {
    const pro = await t.request('GET', `/contacts?limit=100&condition=${q(condition('data.plan', 'equals', 'pro'))}`, { key })
    expect(pro.status).toBe(200)
    expect(pro.body.total).toBe(10)
    expect(pro.body.contacts.every((c: any) => c.data.plan === 'pro')).toBe(true)
    const searched = await t.request('GET', `/contacts?search=P1&condition=${q(condition('data.n', 'gte', 12))}`, { key })
    expect(searched.body.contacts.map((c: any) => c.email).sort()).toEqual(['p12@example.com', 'p13@example.com', 'p14@example.com', 'p15@example.com', 'p16@example.com', 'p17@example.com', 'p18@example.com', 'p19@example.com'])
    const none = await t.request('GET', `/contacts?subscribed=false&condition=${q(condition('data.plan', 'exists'))}`, { key })
    expect(none.body).toMatchObject({ contacts: [], total: 0, cursor: null, hasMore: false })
  })

  test('a segment: its members', async () => {
    const segment = await t.request('POST', '/segments', { key, body: { name: 'Late', condition: condition('data.n', 'gte', 25) } })
    expect(segment.status).toBe(201)
    const members = await t.request('GET', `/contacts?condition=${q(condition(`segment.${segment.body.id}`, 'memberOfSegment'))}`, { key })
    expect(members.body.total).toBe(5)
    const others = await t.request('GET', `/contacts?condition=${q(condition(`segment.${segment.body.id}`, 'notMemberOfSegment'))}&limit=1`, { key })
    expect(others.body.total).toBe(25)
  })

  test('cursor paging with a condition sees each match once, in each sort', async () => {
    const filter = `condition=${q(condition('data.plan', 'equals', 'free'))}`
    for (const order of ['', 'sort=email&dir=asc', 'sort=createdAt&dir=asc', 'sort=email&dir=desc']) {
      const seen = await allPages(`${filter}&${order}`, 3)
      expect(seen.length).toBe(20)
      expect(new Set(seen.map((c) => c.id)).size).toBe(20)
      if (order.startsWith('sort=email')) {
        const emails = seen.map((c) => c.email)
        const sorted = [...emails].sort()
        expect(emails).toEqual(order.endsWith('asc') ? sorted : sorted.reverse())
      }
    }
  })

  test('a bad condition is a 422 naming its field', async () => {
    const wrongOperator = await t.request('GET', `/contacts?condition=${q(condition('data.plan', 'triggered'))}`, { key })
    expect(wrongOperator.status).toBe(422)
    expect(wrongOperator.body.errors[0].field).toBe('condition.groups[0].filters[0].operator')
    const notJson = await t.request('GET', '/contacts?condition=%7Bnope', { key })
    expect(notJson.status).toBe(422)
    expect(notJson.body.errors[0].field).toBe('condition')
    const noSegment = await t.request('GET', `/contacts?condition=${q(condition('segment.0b6c6a4e-0000-4000-8000-000000000000', 'memberOfSegment'))}`, { key })
    expect(noSegment.status).toBe(422)
    expect(noSegment.body.errors[0].field).toBe('condition.groups[0].filters[0].field')
    expect((await t.request('GET', `/contacts/export?condition=${q({ logic: 'XOR', groups: [] })}`, { key })).status).toBe(422)
  })
})

describe('POST /contacts/bulk', () => {
  test('unsubscribe by ids counts those it changed', async () => {
    const ids = await seed('u', 3)
    const first = await t.request('POST', '/contacts/bulk', { key, body: { action: 'unsubscribe', ids: ids.slice(0, 2) } })
    expect(first.body).toEqual({ action: 'unsubscribe', changed: 2, selected: 2 })
    const again = await t.request('POST', '/contacts/bulk', { key, body: { action: 'unsubscribe', ids } })
    expect(again.body).toEqual({ action: 'unsubscribe', changed: 1, selected: 3 })
    const listed = await t.request('GET', '/contacts?search=u0&subscribed=false', { key })
    expect(listed.body.total).toBe(3)
  })

  test('add to a book and remove from it, by a filter and by ids', async () => {
    const book = await t.request('POST', '/api/v1/contactBooks', { key, body: { name: 'Pro customers' } })
    const added = await t.request('POST', '/contacts/bulk', { key, body: { action: 'addToBook', bookId: book.body.id, filter: { condition: condition('data.plan', 'equals', 'pro') } } })
    expect(added.body).toEqual({ action: 'addToBook', changed: 10, selected: 10 })
    expect((await t.request('GET', `/api/v1/contactBooks/${book.body.id}`, { key })).body.contactCount).toBe(10)
    const again = await t.request('POST', '/contacts/bulk', { key, body: { action: 'addToBook', bookId: book.body.id, filter: { search: 'p0', condition: condition('data.plan', 'equals', 'pro') } } })
    expect(again.body).toEqual({ action: 'addToBook', changed: 0, selected: 4 })
    const members = await t.request('GET', `/api/v1/contactBooks/${book.body.id}/contacts?limit=100`, { key })
    const removed = await t.request('POST', '/contacts/bulk', { key, body: { action: 'removeFromBook', bookId: book.body.id, ids: members.body.slice(0, 3).map((c: any) => c.id) } })
    expect(removed.body).toEqual({ action: 'removeFromBook', changed: 3, selected: 3 })
    const byFilter = await t.request('POST', '/contacts/bulk', { key, body: { action: 'removeFromBook', bookId: book.body.id, filter: {} } })
    expect(byFilter.body.changed).toBe(7)
    expect((await t.request('GET', `/api/v1/contactBooks/${book.body.id}`, { key })).body.contactCount).toBe(0)
  })

  test('a filter over more than one chunk is done whole', async () => {
    const book = await t.request('POST', '/api/v1/contactBooks', { key, body: { name: 'Many' } })
    for (const from of [0, 800]) {
      const contacts = Array.from({ length: 800 }, (_, i) => ({ email: `many${from + i}@example.com`, properties: { batch: 'many' } }))
      expect((await t.request('POST', `/api/v1/contactBooks/${book.body.id}/contacts/bulk`, { key, body: contacts })).status).toBe(200)
    }
    const done = await t.request('POST', '/contacts/bulk', { key, body: { action: 'unsubscribe', filter: { subscribed: true, condition: condition('data.batch', 'equals', 'many') } } })
    expect(done.body).toEqual({ action: 'unsubscribe', changed: 1600, selected: 1600 })
    const left = await t.request('GET', `/contacts?subscribed=true&condition=${q(condition('data.batch', 'equals', 'many'))}`, { key })
    expect(left.body.total).toBe(0)
    const deleted = await t.request('POST', '/contacts/bulk/delete', { key, body: { filter: { condition: condition('data.batch', 'equals', 'many') } } })
    expect(deleted.body).toEqual({ action: 'delete', changed: 1600, selected: 1600 })
  })

  test('refused: ids and filter together, neither, a book missing, an unknown book', async () => {
    expect((await t.request('POST', '/contacts/bulk', { key, body: { action: 'unsubscribe', ids: ['x'], filter: {} } })).body.errors[0].field).toBe('ids')
    expect((await t.request('POST', '/contacts/bulk', { key, body: { action: 'unsubscribe' } })).status).toBe(422)
    expect((await t.request('POST', '/contacts/bulk', { key, body: { action: 'addToBook', filter: {} } })).body.errors[0].field).toBe('bookId')
    expect((await t.request('POST', '/contacts/bulk', { key, body: { action: 'addToBook', bookId: 'nope', filter: {} } })).status).toBe(404)
    const bad = await t.request('POST', '/contacts/bulk', { key, body: { action: 'unsubscribe', filter: { condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.x', operator: 'bogus' }] }] } } } })
    expect(bad.status).toBe(422)
    expect(bad.body.errors[0].field).toBe('filter.condition.groups[0].filters[0].operator')
  })
})

describe('who may act in bulk', () => {
  test('a viewer changes nothing; a member unsubscribes but may not delete; an admin deletes', async () => {
    const ids = await seed('role', 4)
    const as = (role: keyof typeof people) => ({ headers: people[role].headers({ project: projectId }) })
    const viewer = await t.request('POST', '/contacts/bulk', { ...as('viewer'), body: { action: 'unsubscribe', ids } })
    expect(viewer.status).toBe(403)
    expect((await t.request('POST', '/contacts/bulk/delete', { ...as('viewer'), body: { ids } })).status).toBe(403)
    expect((await t.request('POST', '/contacts/bulk', { ...as('member'), body: { action: 'unsubscribe', ids: [ids[0]] } })).body.changed).toBe(1)
    const member = await t.request('POST', '/contacts/bulk/delete', { ...as('member'), body: { filter: { search: 'role' } } })
    expect(member.status).toBe(403)
    expect(member.body.message).toContain("cannot delete contacts' data in bulk or erase a contact")
    expect((await t.request('GET', '/contacts?search=role', { key })).body.total).toBe(4)
    const admin = await t.request('POST', '/contacts/bulk/delete', { ...as('admin'), body: { filter: { search: 'role' } } })
    expect(admin.body).toEqual({ action: 'delete', changed: 4, selected: 4 })
    expect((await t.request('GET', '/contacts?search=role', { key })).body.total).toBe(0)
  })

  test('delete by ids deletes those of the project only', async () => {
    const ids = await seed('gone', 2)
    const deleted = await t.request('POST', '/contacts/bulk/delete', { key, body: { ids: [...ids, '00000000-0000-4000-8000-000000000000'] } })
    expect(deleted.body).toEqual({ action: 'delete', changed: 2, selected: 3 })
    expect((await t.request('GET', `/contacts/${ids[0]}`, { key })).status).toBe(404)
  })
})

describe('GET /contacts/export', () => {
  test('the filter as CSV, an attachment, with a column per data key', async () => {
    const response = await t.app.handle(
      new Request(`http://localhost/contacts/export?search=p2&condition=${q(condition('data.plan', 'equals', 'pro'))}`, { headers: { authorization: `Bearer ${key}` } }),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('text/csv')
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="contacts-\d+\.csv"$/)
    const lines = (await response.text()).trim().split('\n')
    expect(lines[0]).toBe('email,subscribed,createdAt,updatedAt,n,plan')
    expect(lines.slice(1).map((line) => line.split(',')[0]).sort()).toEqual(['p21@example.com', 'p24@example.com', 'p27@example.com'])
    expect(lines[1]).toMatch(/^p2\d@example\.com,true,[^,]+Z,[^,]+Z,2\d,pro$/)
  })

  test('the whole table without a filter; a viewer may export, by a link naming the project in projectId', async () => {
    const { cookie } = people.viewer.headers()
    const response = await t.app.handle(new Request(`http://localhost/contacts/export?projectId=${projectId}`, { headers: { cookie: cookie! } }))
    expect(response.status).toBe(200)
    const lines = (await response.text()).trim().split('\n')
    const total = (await t.request('GET', '/contacts?limit=1', { key })).body.total
    expect(lines.length).toBe(total + 1)
  })
})
