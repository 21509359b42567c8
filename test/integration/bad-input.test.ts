// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let key: string
let contactId: string

beforeAll(async () => {
  t = await createTestApp()
  key = (await t.project()).secretKey
  contactId = (await t.request('POST', '/contacts', { key, body: { email: 'keep@example.com', data: { keep: true } } })).body.id
})

afterAll(() => t.close())

/** Everything a bad request could have changed. */
const snapshot = async () => ({
  contacts: await t.app.db.selectFrom('contacts').selectAll().orderBy('id').execute(),
  events: await t.app.db.selectFrom('events').selectAll().orderBy('id').execute(),
})

const TEN_MB = 'x'.repeat(10 * 1024 * 1024)

const badBodies: Array<[string, { raw?: string; body?: unknown; headers?: Record<string, string> }]> = [
  ['no body', {}],
  ['a body that is not JSON', { raw: 'hello there', headers: { 'content-type': 'application/json' } }],
  ['a JSON array', { body: [] }],
  ['a JSON string', { body: 'email' }],
  ['null', { raw: 'null', headers: { 'content-type': 'application/json' } }],
  ['wrong types', { body: { email: 42, event: true, subscribed: 'yes', data: 7 } }],
  ['unknown fields', { body: { email: 'a@example.com', event: 'x', admin: true } }],
  ['a 10 MB string', { body: { email: TEN_MB, event: TEN_MB } }],
  ['an email with spaces', { body: { email: 'jane doe@example.com', event: 'x' } }],
  ['an email with a control character', { body: { email: 'jane\u0007@example.com', event: 'x' } }],
  ['an email with a line break', { body: { email: 'jane@example.com\r\nBcc: x@evil.test', event: 'x' } }],
]

const bodyRoutes = () => [
  ['POST', '/contacts'],
  ['PATCH', `/contacts/${contactId}`],
  ['POST', '/v1/track'],
  ['POST', '/v1/verify'],
]

describe('bad input changes nothing', () => {
  for (const [name, request] of badBodies) {
    test(`${name}: 4xx with the error body on every route that takes a body`, async () => {
      const before = await snapshot()
      for (const [method, path] of bodyRoutes()) {
        const response = await t.request(method!, path!, { key, ...request })
        expect({ route: `${method} ${path}`, status: response.status >= 400 && response.status < 500 }).toEqual({
          route: `${method} ${path}`,
          status: true,
        })
        expect(response.body).toMatchObject({ success: false, statusCode: response.status })
        expect(JSON.stringify(response.body).length).toBeLessThan(4096)
      }
      expect(await snapshot()).toEqual(before)
    })
  }

  test.each(['limit=0', 'limit=abc', 'limit=101', 'cursor=forged', 'cursor=' + 'A'.repeat(5000), 'subscribed=perhaps', 'search=' + 'a'.repeat(300), 'unknown=1'])(
    'GET /contacts?%s is a 422',
    async (query) => {
      const response = await t.request('GET', `/contacts?${query}`, { key })
      expect(response.status).toBe(422)
      expect(response.body.errors.length).toBeGreaterThan(0)
    },
  )

  test.each(['nope', '../../etc/passwd', '%00', "1' OR '1'='1", 'x'.repeat(2000)])('a contact id of %j is a 404', async (id) => {
    const before = await snapshot()
    for (const method of ['GET', 'DELETE']) {
      expect((await t.request(method, `/contacts/${encodeURIComponent(id)}`, { key })).status).toBe(404)
    }
    expect(await snapshot()).toEqual(before)
  })
})
