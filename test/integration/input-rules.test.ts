// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { nestedArrays, nestedObjects } from '../helpers/hostile.ts'
import { pathOf, routesOf, type Route } from '../helpers/hostile-walk.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { asSentence } from '../../src/http/field-sentences.ts'

/** The rules of docs/security.md, "Input", each tried on every route it concerns. */

let w: World
let routes: Route[]
let contactId: string
let bookId: string
let bookContactId: string

const json = { 'content-type': 'application/json' }
const call = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
const raw = (method: string, path: string, text: string) => w.t.request(method, path, { key: w.key, raw: text, headers: json })

beforeAll(async () => {
  w = await createWorld({ settings: { 'rate-limit-per-minute': '1000000' } })
  routes = routesOf((await call('GET', '/swagger/json')).body)
  contactId = (await call('POST', '/contacts', { email: 'keep@example.net', data: { keep: true } })).body.id
  bookId = (await call('POST', '/api/v1/contactBooks', { name: 'Book' })).body.id
  bookContactId = (await call('POST', `/api/v1/contactBooks/${bookId}/contacts`, { email: 'member@example.net' })).body.contactId
})

afterAll(() => w.close())

const snapshot = async () => ({
  contacts: await w.t.app.db.selectFrom('contacts').selectAll().orderBy('id').execute(),
  events: await w.t.app.db.selectFrom('events').selectAll().orderBy('id').execute(),
  emails: await w.t.app.db.selectFrom('emails').select('id').execute(),
})

/** Routes that take contact data, and a body that puts `data` where each keeps it. */
const dataRoutes = (data: string): Array<[string, string, string, string]> => [
  ['POST', '/contacts', `{"email":"deep@example.net","data":${data}}`, 'data'],
  ['PATCH', `/contacts/${contactId}`, `{"data":${data}}`, 'data'],
  ['POST', '/v1/track', `{"email":"deep@example.net","event":"deep","data":${data}}`, 'data'],
  ['POST', '/v1/send', `{"to":"deep@example.net","subject":"Hi","body":"<p>Hi</p>","from":"shop@sender.example.com","data":${data}}`, 'data'],
  ['POST', `/api/v1/contactBooks/${bookId}/contacts`, `{"email":"deep@example.net","properties":${data}}`, 'properties'],
  ['PUT', `/api/v1/contactBooks/${bookId}/contacts/${bookContactId}`, `{"email":"member@example.net","properties":${data}}`, 'properties'],
  ['PATCH', `/api/v1/contactBooks/${bookId}/contacts/${bookContactId}`, `{"properties":${data}}`, 'properties'],
  ['POST', `/api/v1/contactBooks/${bookId}/contacts/bulk`, `[{"email":"deep@example.net","properties":${data}}]`, '[0].properties'],
]

describe('nesting', () => {
  test('100,000 levels of arrays or objects are a 422 that says so, on every route that takes a body', async () => {
    const withBody = routes.filter((route) => route.body)
    expect(withBody.length).toBeGreaterThan(35)
    for (const route of withBody) {
      for (const body of [nestedArrays(100_000), nestedObjects(100_000)]) {
        const response = await raw(route.method, pathOf(route.template, {}), body)
        expect({ route: `${route.method} ${route.template}`, status: response.status, message: response.body.message }).toEqual({
          route: `${route.method} ${route.template}`,
          status: 422,
          message: expect.stringContaining('is nested more than 64 levels deep'),
        })
      }
    }
  })

  test('a body of 64 levels is read; 65 is refused, naming the top-level field it is under', async () => {
    const ok = await raw('POST', '/v1/verify', `{"email":"a@example.net","x":${nestedObjects(63)}}`)
    expect(ok.body.errors).toMatchObject([{ field: 'x', message: 'X is not a field this request takes.' }])
    const deep = await raw('POST', '/v1/verify', `{"email":"a@example.net","x":${nestedObjects(64)}}`)
    expect(deep.body.errors).toMatchObject([{ field: 'x', message: 'X is nested more than 64 levels deep.' }])
    const inList = await raw('POST', `/api/v1/contactBooks/${bookId}/contacts/bulk`, `[{"email":"a@example.net"},{"email":"b@example.net","properties":${nestedArrays(64)}}]`)
    expect(inList.body.errors).toMatchObject([{ field: '[1].properties', message: 'Properties (in item 2) is nested more than 64 levels deep.' }])
    const whole = await raw('POST', '/v1/verify', nestedArrays(65))
    expect(whole.body.errors).toMatchObject([{ field: '[0]', message: 'Item 1 is nested more than 64 levels deep.' }])
  })

  test('contact data 5,000 deep, or 33 deep, is a 422 naming it, on every route that stores data; nothing changes', async () => {
    const before = await snapshot()
    // The deep branch among shallow ones, before and after them: the body check's count of levels, which contact data's check reuses, is of the deepest.
    const amongOthers = `{"first":{},"deep":${nestedObjects(32)},"list":[[]],"last":"x"}`
    const deepLast = `{"first":[{"b":{}}],"n":1,"deep":${nestedArrays(32)}}`
    for (const [data, limit] of [[nestedObjects(5000), 64], [nestedObjects(33), 32], [`{"list":${nestedArrays(32)}}`, 32], [amongOthers, 32], [deepLast, 32]] as const) {
      for (const [method, path, body, field] of dataRoutes(data)) {
        const response = await raw(method, path, body)
        expect({ route: `${method} ${path}`, status: response.status, errors: response.body.errors }).toEqual({
          route: `${method} ${path}`,
          status: 422,
          errors: [{ field, message: asSentence(field, `is nested more than ${limit} levels deep`), code: 'invalid_value' }],
        })
      }
    }
    expect(await snapshot()).toEqual(before)
  })

  test('contact data 32 levels deep, itself the first, is kept as it was sent', async () => {
    const data = JSON.parse(`{"x":${nestedObjects(31)}}`)
    const saved = await call('POST', '/contacts', { email: 'deep-ok@example.net', data })
    expect(saved.status).toBe(201)
    expect((await call('GET', `/contacts/${saved.body.id}`)).body.data).toEqual(data)
    const amongOthers = JSON.parse(`{"first":{},"deep":${nestedObjects(31)},"list":[[]],"last":"x"}`)
    const tracked = await call('POST', '/v1/track', { email: 'deep-ok@example.net', event: 'deep', data: amongOthers })
    expect(tracked.status).toBe(200)
    expect((await call('GET', `/contacts/${saved.body.id}`)).body.data).toEqual({ ...data, ...amongOthers })
  })
})

describe('ill-formed Unicode', () => {
  const LONE = ['"jane\\ud800@example.net"', '"jane\\udc00@example.net"', '"jane@exa\\udbffmple.net"', '"\\udc00\\ud800@example.net"']

  test.each(LONE)('an address of %s is a 422 naming the field on /v1/verify, contacts and contact books; nothing changes', async (email) => {
    const before = await snapshot()
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/v1/verify', `{"email":${email}}`, 'email'],
      ['POST', '/contacts', `{"email":${email}}`, 'email'],
      ['PATCH', `/contacts/${contactId}`, `{"email":${email}}`, 'email'],
      ['POST', '/v1/track', `{"email":${email},"event":"x"}`, 'email'],
      ['POST', `/api/v1/contactBooks/${bookId}/contacts`, `{"email":${email}}`, 'email'],
      ['PUT', `/api/v1/contactBooks/${bookId}/contacts/${bookContactId}`, `{"email":${email}}`, 'email'],
      ['POST', `/api/v1/contactBooks/${bookId}/contacts/bulk`, `[{"email":"ok@example.net"},{"email":${email}}]`, '[1].email'],
      ['POST', '/api/v1/suppressions', `{"email":${email}}`, 'email'],
      ['POST', '/api/v1/emails', `{"to":${email},"from":"shop@sender.example.com","subject":"Hi","text":"x"}`, 'to'],
    ]
    for (const [method, path, body, field] of cases) {
      const response = await raw(method, path, body)
      expect({ route: `${method} ${path}`, status: response.status, field: response.body.errors?.[0]?.field, message: response.body.errors?.[0]?.message }).toEqual({
        route: `${method} ${path}`,
        status: 422,
        field,
        message: expect.stringContaining('well-formed Unicode'),
      })
    }
    expect(await snapshot()).toEqual(before)
  })

  test('a lone surrogate in a subject, in data, or in a key is refused the same way', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['/v1/send', '{"to":"a@example.net","from":"shop@sender.example.com","subject":"Hi \\ud800","body":"x"}', 'subject', 'Subject'],
      ['/contacts', '{"email":"a@example.net","data":{"tags":["ok","\\udfff"]}}', 'data.tags[1]', 'Item 2 of tags (in data)'],
      ['/contacts', '{"email":"a@example.net","data":{"\\ud800":1}}', 'data.\ufffd', '\ufffd (in data)'],
      ['/templates', '{"name":"T","subject":"\\ud83d","body":"x"}', 'subject', 'Subject'],
    ]
    for (const [path, body, field, label] of cases) {
      expect((await raw('POST', path, body)).body.errors).toMatchObject([{ field, message: `${label} is not well-formed Unicode: it holds a lone UTF-16 surrogate.` }])
    }
  })

  test('a surrogate pair is one character, and is kept', async () => {
    const saved = await raw('POST', '/contacts', '{"email":"\\ud83d\\udcf0@example.net","data":{"icon":"\\ud83d\\udcf0"}}')
    expect(saved.status).toBe(201)
    expect(saved.body).toMatchObject({ email: '📰@example.net', data: { icon: '📰' } })
  })

  test('a body that is not UTF-8, or says it is another charset, is refused', async () => {
    const bytes = await w.t.app.handle(
      new Request('http://localhost/v1/verify', { method: 'POST', headers: { ...json, authorization: `Bearer ${w.key}` }, body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) }),
    )
    expect([bytes.status, ((await bytes.json()) as { code: string }).code]).toEqual([400, 'INVALID_ENCODING'])
    const utf16 = await w.t.request('POST', '/v1/verify', { key: w.key, raw: '{}', headers: { 'content-type': 'application/json; charset=utf-16' } })
    expect(utf16.status).toBe(415)
  })
})

describe('number parameters', () => {
  const NOT_DECIMAL = ['0x10', '%205', '5%20', '1%0D%0A', '1e1', '%2B1', '-1', '1.0', '', 'Infinity', 'NaN', '%EF%BC%95']

  test('every whole-number query parameter of the document takes plain decimal digits only', async () => {
    const numeric = routes.flatMap((route) => route.params.filter((p) => p.in === 'query' && p.schema?.pattern === '^[0-9]{1,16}$').map((p) => [route, p.name] as const))
    expect(numeric.length).toBeGreaterThan(12)
    for (const [route, name] of numeric) {
      const path = pathOf(route.template, { id: '1', contactBookId: bookId })
      for (const value of NOT_DECIMAL) {
        const response = await call('GET', `${path}?${name}=${value}`)
        expect({ route: `${route.template}?${name}=${value}`, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({
          route: `${route.template}?${name}=${value}`,
          status: 422,
          field: name,
        })
      }
    }
  })

  test('decimal digits within the range are read as the number', async () => {
    expect((await call('GET', '/contacts?limit=1')).body.contacts).toHaveLength(1)
    expect((await call('GET', '/contacts?limit=0001')).body.contacts).toHaveLength(1)
    expect((await call('GET', `/api/v1/contactBooks/${bookId}/contacts?page=1&limit=1000`)).status).toBe(200)
    expect((await call('GET', '/contacts?limit=101')).body.errors).toMatchObject([{ field: 'limit', message: 'Limit must be a whole number from 1 to 100.' }])
  })

  test('a domain id in the path takes plain decimal digits only', async () => {
    for (const value of ['0x10', '%205', '1%0D%0A', '1e1', '-1', '0', '99999999999999999']) {
      const response = await call('GET', `/api/v1/domains/${value}`)
      expect({ value, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({ value, status: 422, field: 'id' })
    }
    expect((await call('GET', `/api/v1/domains/${w.domain.id}`)).status).toBe(200)
    expect((await call('GET', '/api/v1/domains/424242')).status).toBe(404)
  })

  test('a whole number in a body is a JSON number: strings, fractions and out-of-range numbers are refused', async () => {
    const campaign = (await call('POST', '/campaigns', { name: 'N', subject: 'N', body: '<p>N</p>', from: 'shop@sender.example.com', audienceType: 'ALL' })).body.data.id
    for (const batchSize of ['0x10', '5', ' 5', 1.5, 0, 1e308, null]) {
      const response = await call('PATCH', `/campaigns/${campaign}`, { batchSize })
      expect({ batchSize, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({ batchSize, status: 422, field: 'batchSize' })
    }
    expect((await call('PATCH', `/campaigns/${campaign}`, { batchSize: 16 })).status).toBe(200)
    expect((await w.t.app.db.selectFrom('campaigns').select('batch_size').where('id', '=', campaign).executeTakeFirstOrThrow()).batch_size).toBe(16)
  })
})

describe('updates', () => {
  test('every PUT and PATCH that takes a body refuses none, or one that is not an object', async () => {
    const updates = routes.filter((route) => (route.method === 'put' || route.method === 'patch') && route.body)
    expect(updates.length).toBeGreaterThan(12)
    for (const route of updates) {
      const path = pathOf(route.template, { id: 'x', contactBookId: bookId, contactId: bookContactId, emailId: 'x', campaignId: 'x', stepId: 'x' })
      for (const body of [undefined, '', 'null', '[]', '[{}]', '"x"', '42', 'true']) {
        const response = await w.t.request(route.method.toUpperCase(), path, { key: w.key, raw: body, headers: body === undefined ? {} : json })
        expect({ route: `${route.method} ${route.template}`, body, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({
          route: `${route.method} ${route.template}`,
          body,
          status: 422,
          field: 'body',
        })
      }
    }
  })
})
