// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generateKey } from '../../src/core/projects/keys.ts'
import { listKeys, revokeKey, setProjectDisabled } from '../../src/core/projects/projects.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { authenticatedRoutes } from '../helpers/routes.ts'

let t: TestApp
let keys: { secret: string; public: string; revoked: string; disabled: string }
let contactId: string

beforeAll(async () => {
  t = await createTestApp()
  const project = await t.project('Main')
  const revoked = await t.project('Revoked')
  const disabled = await t.project('Disabled')
  const [revokedKey] = await listKeys(t.app.db, revoked.id)
  await t.app.writer.run((trx) => revokeKey(trx, revokedKey!.id, Date.now()))
  await t.app.writer.run((trx) => setProjectDisabled(trx, disabled.id, true, Date.now()))
  keys = { secret: project.secretKey, public: project.publicKey, revoked: revoked.secretKey, disabled: disabled.secretKey }
  const created = await t.request('POST', '/contacts', { key: keys.secret, body: { email: 'someone@example.com' } })
  contactId = created.body.id
})

afterAll(() => t.close())

const cases: Array<[string, (k: typeof keys) => Record<string, string>, number, string]> = [
  ['no Authorization header', () => ({}), 401, 'UNAUTHORIZED'],
  ['a header that is not Bearer', (k) => ({ authorization: `Basic ${k.secret}` }), 401, 'UNAUTHORIZED'],
  ['a malformed key', () => ({ authorization: 'Bearer sk_short' }), 401, 'UNAUTHORIZED'],
  ['an unknown key', () => ({ authorization: `Bearer ${generateKey('secret').key}` }), 401, 'UNAUTHORIZED'],
  ['a revoked key', (k) => ({ authorization: `Bearer ${k.revoked}` }), 401, 'UNAUTHORIZED'],
  ['a key of a disabled project', (k) => ({ authorization: `Bearer ${k.disabled}` }), 403, 'PROJECT_DISABLED'],
]

describe('authentication on every route', () => {
  for (const [name, headers, status, code] of cases) {
    test(`${name}: ${status} on every route`, async () => {
      for (const route of authenticatedRoutes(contactId)) {
        const response = await t.request(route.method, route.path, { headers: headers(keys), body: route.body })
        expect({ route: `${route.method} ${route.path}`, status: response.status }).toEqual({
          route: `${route.method} ${route.path}`,
          status,
        })
        expect(response.body).toMatchObject({ success: false, code, statusCode: status })
      }
    })
  }

  test('a public key gets 403 everywhere but POST /v1/track', async () => {
    for (const route of authenticatedRoutes(contactId)) {
      const response = await t.request(route.method, route.path, { key: keys.public, body: route.body })
      const expected = route.path === '/v1/track' ? 200 : 403
      expect({ route: `${route.method} ${route.path}`, status: response.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: expected,
      })
    }
  })

  test('the bearer scheme is case-insensitive', async () => {
    const response = await t.request('GET', '/contacts', { headers: { authorization: `bearer ${keys.secret}` } })
    expect(response.status).toBe(200)
  })
})

describe('project isolation', () => {
  test("another project's contact is 404 for every route, and none of its data is returned", async () => {
    const other = await t.project('Other')
    const mine = await t.request('POST', '/contacts', { key: keys.secret, body: { email: 'private@example.com', data: { secret: 'value-42' } } })
    for (const [method, body] of [['GET'], ['PATCH', { subscribed: false }], ['DELETE']] as const) {
      const response = await t.request(method, `/contacts/${mine.body.id}`, { key: other.secretKey, body })
      expect(response.status).toBe(404)
      expect(JSON.stringify(response.body)).not.toContain('value-42')
      expect(JSON.stringify(response.body)).not.toContain('private@example.com')
    }
    const list = await t.request('GET', '/contacts', { key: other.secretKey })
    expect(list.body).toMatchObject({ contacts: [], total: 0 })
    const search = await t.request('GET', '/contacts?search=private', { key: other.secretKey })
    expect(search.body.contacts).toEqual([])
    const still = await t.request('GET', `/contacts/${mine.body.id}`, { key: keys.secret })
    expect(still.body).toMatchObject({ email: 'private@example.com', subscribed: true })
  })

  test('the same email in two projects is two contacts', async () => {
    const other = await t.project('Other 2')
    const a = await t.request('POST', '/v1/track', { key: keys.secret, body: { email: 'shared@example.com', event: 'x' } })
    const b = await t.request('POST', '/v1/track', { key: other.secretKey, body: { email: 'shared@example.com', event: 'x' } })
    expect(a.body.data.contact).not.toBe(b.body.data.contact)
  })
})
