// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/*
 * Cross-origin requests at the HTTP level: /v1/track is open to every origin (a public key is
 * meant for web pages); every other route sends no CORS header, and its preflight is refused.
 * test/browser/cors.test.ts shows what a real browser then does.
 */

let t: TestApp
let keys: { secretKey: string; publicKey: string; id: number }
const ORIGIN = { origin: 'https://shop.example' }

beforeAll(async () => {
  t = await createTestApp()
  keys = await t.project()
})
afterAll(() => t.close())

const preflight = (path: string, method = 'POST') =>
  t.request('OPTIONS', path, { headers: { ...ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' } })

describe('/v1/track from a page on another origin', () => {
  test('its preflight allows any origin, POST, and the authorization and content-type headers', async () => {
    const answer = await preflight('/v1/track')
    expect(answer.status).toBe(204)
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS')
    expect(answer.headers.get('access-control-allow-headers')).toBe('authorization, content-type')
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull()
  })

  test('its answers carry the header, errors included, so the page can read them', async () => {
    const ok = await t.request('POST', '/v1/track', { key: keys.publicKey, headers: ORIGIN, body: { email: 'visitor@example.com', event: 'viewed-pricing' } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe('*')
    const refused = await t.request('POST', '/v1/track', { key: 'pk_not-a-key', headers: ORIGIN, body: { email: 'visitor@example.com', event: 'x' } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    const bad = await t.request('POST', '/v1/track', { key: keys.publicKey, headers: ORIGIN, body: { email: 'not an address', event: 'x' } })
    expect(bad.status).toBe(422)
    expect(bad.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('every other route', () => {
  test.each(['/api/v1/emails', '/v1/send', '/contacts', '/api/v1/auth/sign-in', '/api/v1/keys'])('%s: a preflight is refused with a 403 that says why, and no CORS header', async (path) => {
    const answer = await preflight(path)
    expect(answer.status).toBe(403)
    expect(answer.body).toMatchObject({ code: 'CROSS_ORIGIN_REFUSED', message: expect.stringContaining('/v1/track'), suggestion: expect.stringContaining('secret key') })
    expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
  })

  test('answers a secret-key call with no CORS header, whatever origin it names', async () => {
    const answer = await t.request('GET', '/api/v1/emails', { key: keys.secretKey, headers: ORIGIN })
    expect(answer.status).toBe(200)
    expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
  })

  test('a preflight changes nothing: no contact is made by an OPTIONS to /contacts, even with a body and a key', async () => {
    const before = (await t.request('GET', '/contacts', { key: keys.secretKey })).body
    const answer = await t.request('OPTIONS', '/contacts', { key: keys.secretKey, headers: ORIGIN, body: { email: 'sneaky@example.com' } })
    expect(answer.status).toBe(403)
    expect((await t.request('GET', '/contacts', { key: keys.secretKey })).body).toEqual(before)
  })
})
