// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let project: { id: number; secretKey: string; publicKey: string }

beforeAll(async () => {
  t = await createTestApp()
  project = await t.project()
})

afterAll(() => t.close())

const BASE = '/api/v1/contactBooks'
const call = (method: string, path: string, body?: unknown, key = project.secretKey) => t.request(method, `${BASE}${path}`, { key, body })

async function book(name = 'Newsletter', extra: Record<string, unknown> = {}) {
  const response = await call('POST', '', { name, ...extra })
  expect(response.status).toBe(200)
  return response.body
}

const emailsIn = async (bookId: string, query = '') => (await call('GET', `/${bookId}/contacts${query}`)).body.map((c: any) => c.email).sort()

describe('contact books', () => {
  test("create, get, list, update and delete in useSend's shape", async () => {
    const created = await book('Newsletter', { emoji: '📰', properties: { source: 'site' }, variables: ['company'] })
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Newsletter',
      teamId: project.id,
      emoji: '📰',
      properties: { source: 'site' },
      variables: ['company'],
      doubleOptInEnabled: false,
      doubleOptInFrom: null,
      doubleOptInSubject: 'Please confirm your subscription',
      doubleOptInContent: expect.stringContaining('{{doubleOptInUrl}}'),
      contactCount: 0,
      _count: { contacts: 0 },
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    })
    expect((await call('GET', `/${created.id}`)).body).toEqual(created)
    expect((await call('GET', '')).body).toContainEqual(created)
    const updated = await call('PATCH', `/${created.id}`, { name: 'Weekly', emoji: '📅' })
    expect(updated.body).toMatchObject({ name: 'Weekly', emoji: '📅', properties: { source: 'site' }, variables: ['company'] })
    const deleted = await call('DELETE', `/${created.id}`)
    expect(deleted.body).toEqual({ id: created.id, success: true, message: 'Contact book deleted' })
    expect((await call('GET', `/${created.id}`)).status).toBe(404)
  })

  test('a book without emoji gets the default one, and shows as a STATIC segment', async () => {
    const created = await book('Plain')
    expect(created.emoji).toBe('📙')
    const asSegment = await t.request('GET', `/segments/${created.id}`, { key: project.secretKey })
    expect(asSegment.body).toMatchObject({ name: 'Plain', type: 'STATIC', memberCount: 0 })
  })

  test('a STATIC segment that is not a book is not found among the books', async () => {
    const segment = await t.request('POST', '/segments', { key: project.secretKey, body: { name: 'Just a list', type: 'STATIC' } })
    expect((await call('GET', `/${segment.body.id}`)).status).toBe(404)
    expect((await call('GET', '')).body.map((b: any) => b.id)).not.toContain(segment.body.id)
  })
})

describe('contacts of a book', () => {
  test('add creates or updates by email, merging properties; get, update and remove', async () => {
    const created = await book('Customers')
    const added = await call('POST', `/${created.id}/contacts`, { email: 'Koushik@Example.com', firstName: 'Koushik', properties: { company: 'Acme' } })
    expect(added.status).toBe(200)
    const { contactId } = added.body
    expect(contactId).toEqual(expect.any(String))
    const again = await call('POST', `/${created.id}/contacts`, { email: 'koushik@example.com', lastName: 'KM', subscribed: false })
    expect(again.body).toEqual({ contactId })

    const fetched = await call('GET', `/${created.id}/contacts/${contactId}`)
    expect(fetched.body).toEqual({
      id: contactId,
      email: 'Koushik@Example.com',
      firstName: 'Koushik',
      lastName: 'KM',
      subscribed: false,
      properties: { company: 'Acme' },
      contactBookId: created.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      consent: { confirmedAt: expect.any(String), method: 'api', clientIp: null, userAgent: null, agreedTo: { book: created.name, subject: null, via: 'api' } },
    })
    const plain = await t.request('GET', `/contacts/${contactId}`, { key: project.secretKey })
    expect(plain.body.data).toEqual({ company: 'Acme', firstName: 'Koushik', lastName: 'KM' })

    expect((await call('PATCH', `/${created.id}/contacts/${contactId}`, { subscribed: true, properties: { plan: 'pro' } })).body).toEqual({ contactId })
    expect((await call('GET', `/${created.id}/contacts/${contactId}`)).body).toMatchObject({ subscribed: true, properties: { company: 'Acme', plan: 'pro' } })

    expect((await call('DELETE', `/${created.id}/contacts/${contactId}`)).body).toEqual({ success: true })
    expect((await call('GET', `/${created.id}/contacts/${contactId}`)).status).toBe(404)
    expect((await call('DELETE', `/${created.id}/contacts/${contactId}`)).status).toBe(404)
    expect((await t.request('GET', `/contacts/${contactId}`, { key: project.secretKey })).status).toBe(200)
  })

  test('PUT changes the contact its path names: its address, names and properties, never another contact', async () => {
    const created = await book('Puts')
    const { contactId } = (await call('POST', `/${created.id}/contacts`, { email: 'put@example.com', properties: { plan: 'free' } })).body
    const other = (await call('POST', `/${created.id}/contacts`, { email: 'other@example.com', firstName: 'Other' })).body.contactId
    const put = await call('PUT', `/${created.id}/contacts/${contactId}`, { email: 'moved@example.com', firstName: 'Put', properties: { plan: 'pro' }, subscribed: false })
    expect(put.status).toBe(200)
    expect(put.body).toEqual({ contactId })
    expect((await call('GET', `/${created.id}/contacts/${contactId}`)).body).toMatchObject({ email: 'moved@example.com', firstName: 'Put', subscribed: false, properties: { plan: 'pro' } })
    // The body names the other contact's address: the path's contact is the one PUT, so it is a conflict, not an edit of the other one.
    const clash = await call('PUT', `/${created.id}/contacts/${contactId}`, { email: 'OTHER@example.com', firstName: 'Hijack' })
    expect(clash.status).toBe(409)
    expect((await call('GET', `/${created.id}/contacts/${other}`)).body).toMatchObject({ email: 'other@example.com', firstName: 'Other' })
  })

  test('PUT to a contact that is not in the book, or to no contact, is a 404 and creates nothing', async () => {
    const created = await book('Put nowhere')
    const elsewhere = (await t.request('POST', '/contacts', { key: project.secretKey, body: { email: 'elsewhere@example.com' } })).body.id
    for (const id of ['anything', elsewhere]) {
      const put = await call('PUT', `/${created.id}/contacts/${id}`, { email: 'new-by-put@example.com' })
      expect(put.status).toBe(404)
    }
    expect(await emailsIn(created.id)).toEqual([])
    expect((await t.request('GET', '/contacts?search=new-by-put', { key: project.secretKey })).body.contacts).toEqual([])
  })

  test('PUT and PATCH without a body, or with one that is not an object, are 422', async () => {
    const created = await book('Bodies')
    const { contactId } = (await call('POST', `/${created.id}/contacts`, { email: 'body@example.com' })).body
    for (const method of ['PUT', 'PATCH']) {
      for (const raw of [undefined, '', 'null', '[]', '"body@example.com"', '42']) {
        const headers: Record<string, string> = raw === undefined ? {} : { 'content-type': 'application/json' }
        const response = await t.request(method, `${BASE}/${created.id}/contacts/${contactId}`, { key: project.secretKey, raw, headers })
        expect({ method, raw, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({ method, raw, status: 422, field: 'body' })
      }
    }
  })

  test('bulk add takes up to 1,000 at once; the count follows', async () => {
    const created = await book('Bulk')
    await call('POST', `/${created.id}/contacts`, { email: 'bulk0@example.com', properties: { keep: 1 } })
    const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `bulk${i}@example.com`, ...(i % 2 === 0 && { properties: { n: i } }) }))
    const started = performance.now()
    const response = await call('POST', `/${created.id}/contacts/bulk`, contacts)
    const elapsed = performance.now() - started
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ message: 'Added 1000 contacts', count: 1000 })
    expect(elapsed).toBeLessThan(5000)
    expect((await call('GET', `/${created.id}`)).body).toMatchObject({ contactCount: 1000, _count: { contacts: 1000 } })
    const first = (await call('GET', `/${created.id}/contacts?emails=bulk0@example.com`)).body
    expect(first).toHaveLength(1)
    expect(first[0].properties).toEqual({ keep: 1, n: 0 })
  })

  test('an address given twice in one bulk add is applied in order', async () => {
    const created = await book('Twice')
    await call('POST', `/${created.id}/contacts/bulk`, [
      { email: 'twice@example.com', properties: { a: 1, b: 1 } },
      { email: 'TWICE@example.com', subscribed: false, properties: { b: 2 } },
    ])
    const [contact] = (await call('GET', `/${created.id}/contacts`)).body
    expect(contact).toMatchObject({ email: 'twice@example.com', subscribed: false, properties: { a: 1, b: 2 } })
  })

  test.each([
    ['a bad address', [{ email: 'ok@bulk-bad.example' }, { email: 'not an address' }], '[1].email'],
    ['more than 1,000', Array.from({ length: 1001 }, (_, i) => ({ email: `x${i}@bulk-bad.example` })), 'body'],
    ['none', [], 'body'],
    ['an unknown field', [{ email: 'ok@bulk-bad.example', phone: '1' }], '0.phone'],
  ])('bulk add with %s is a 422 and adds nobody', async (_, body, field) => {
    const created = await book('All or none')
    const response = await call('POST', `/${created.id}/contacts/bulk`, body)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
    expect((await call('GET', `/${created.id}`)).body.contactCount).toBe(0)
    expect((await t.request('GET', '/contacts?search=bulk-bad.example', { key: project.secretKey })).body.total).toBe(0)
  })

  test('bulk delete takes contacts out of the book and counts those that were in it', async () => {
    const created = await book('Pruned')
    const ids = []
    for (const email of ['p1@example.com', 'p2@example.com', 'p3@example.com']) ids.push((await call('POST', `/${created.id}/contacts`, { email })).body.contactId)
    const response = await call('DELETE', `/${created.id}/contacts/bulk`, { contactIds: [ids[0], ids[1], 'not-in-book'] })
    expect(response.body).toEqual({ success: true, count: 2 })
    expect(await emailsIn(created.id)).toEqual(['p3@example.com'])
  })

  test('the list pages by page and limit, and filters by emails and ids', async () => {
    const created = await book('Listed')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await call('POST', `/${created.id}/contacts`, { email: `l${i}@example.com` })).body.contactId)
    await t.request('POST', '/contacts', { key: project.secretKey, body: { email: 'outsider@example.com' } })
    const page = await call('GET', `/${created.id}/contacts?page=2&limit=2`)
    expect(page.body.map((c: any) => c.email)).toEqual(['l2@example.com', 'l1@example.com'])
    expect(await emailsIn(created.id, '?emails=L1@example.com,l3@example.com,outsider@example.com')).toEqual(['l1@example.com', 'l3@example.com'])
    expect(await emailsIn(created.id, `?ids=${ids[4]},${ids[0]}`)).toEqual(['l0@example.com', 'l4@example.com'])
    expect((await call('GET', `/${created.id}/contacts?limit=1001`)).status).toBe(422)
  })

  test('adding to a book enters contacts into the tracked segments that name it', async () => {
    const created = await book('Tracked book')
    const tracked = await t.request('POST', '/segments', {
      key: project.secretKey,
      body: { name: 'In book', trackMembership: true, condition: { logic: 'AND', groups: [{ filters: [{ field: `segment.${created.id}`, operator: 'memberOfSegment' }] }] } },
    })
    const { contactId } = (await call('POST', `/${created.id}/contacts`, { email: 'reader@example.com' })).body
    await call('DELETE', `/${created.id}/contacts/${contactId}`)
    const events = await t.app.db.selectFrom('events').select('name').where('contact_id', '=', contactId).orderBy('id').execute()
    expect(events.map((e) => e.name)).toEqual([`segment.${tracked.body.id}.entry`, `segment.${tracked.body.id}.exit`])
    expect((await call('DELETE', `/${created.id}`)).status).toBe(409)
  })
})

describe('contact books: keys and other projects', () => {
  test.each([
    ['GET', '/unknown'],
    ['PATCH', '/unknown'],
    ['DELETE', '/unknown'],
    ['GET', '/unknown/contacts'],
    ['POST', '/unknown/contacts'],
    ['POST', '/unknown/contacts/bulk'],
  ])('%s %s is a 404', async (method, path) => {
    const body = method === 'PATCH' ? { name: 'x' } : path.endsWith('bulk') ? [{ email: 'a@example.com' }] : method === 'POST' ? { email: 'a@example.com' } : undefined
    expect((await call(method, path, body)).status).toBe(404)
  })

  test("another project's book and its contacts are 404s", async () => {
    const other = await t.project('Other books')
    const theirs = await t.request('POST', BASE, { key: other.secretKey, body: { name: 'Theirs' } })
    const { contactId } = (await t.request('POST', `${BASE}/${theirs.body.id}/contacts`, { key: other.secretKey, body: { email: 'theirs@example.com' } })).body
    expect((await call('GET', `/${theirs.body.id}`)).status).toBe(404)
    expect((await call('GET', `/${theirs.body.id}/contacts/${contactId}`)).status).toBe(404)
    const mine = await book('Mine')
    expect((await call('GET', `/${mine.id}/contacts/${contactId}`)).status).toBe(404)
  })

  test('a public key is a 403', async () => {
    expect((await call('GET', '', undefined, project.publicKey)).status).toBe(403)
    expect((await call('POST', '', { name: 'x' }, project.publicKey)).status).toBe(403)
  })
})
