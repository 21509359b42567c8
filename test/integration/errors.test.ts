// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let key: string

beforeAll(async () => {
  t = await createTestApp()
  key = (await t.project()).secretKey
})

afterAll(() => t.close())

/** The error body of DESIGN.md, for a given status and code. */
const expectErrorBody = (body: any, status: number, code: string) => {
  expect(body).toMatchObject({ success: false, code, statusCode: status, error: { code } })
  expect(typeof body.message).toBe('string')
  expect(body.error.message).toBe(body.message)
  expect(body.requestId).toMatch(/\S+/)
  expect(body.suggestion).toMatch(/\S/)
}

const MiB = 1024 * 1024

/** A request whose body arrives as a stream, so it has no Content-Length. */
const streamed = (path: string, contentType: string, chunks: () => Iterable<string>) => {
  const iterator = chunks()[Symbol.iterator]()
  let pulled = 0
  const body = new ReadableStream({
    pull(controller) {
      const next = iterator.next()
      if (next.done) return controller.close()
      pulled++
      controller.enqueue(new TextEncoder().encode(next.value))
    },
  })
  const response = t.app.handle(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
      body,
      duplex: 'half',
    } as RequestInit),
  )
  return { response, pulled: () => pulled }
}

describe('error responses', () => {
  test.each([
    ['an unknown route', 'GET', '/nope', undefined, {}, 404, 'NOT_FOUND'],
    ['a wrong method', 'PUT', '/contacts', '{}', { 'content-type': 'application/json' }, 404, 'NOT_FOUND'],
    ['malformed JSON', 'POST', '/v1/track', '{"email": ', { 'content-type': 'application/json' }, 400, 'INVALID_JSON'],
    ['JSON without a content type', 'POST', '/v1/track', '{bad', {}, 400, 'INVALID_JSON'],
    ['JSON sent as a form (curl -d)', 'POST', '/v1/track', '{"email":"a@b.com","event":"x"}', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a body over 1 MiB', 'POST', '/v1/track', JSON.stringify({ email: 'a@b.com', event: 'x', data: { blob: 'x'.repeat(MiB) } }), { 'content-type': 'application/json' }, 413, 'PAYLOAD_TOO_LARGE'],
  ])('%s', async (_, method, path, raw, headers, status, code) => {
    const response = await t.request(method, path, { key, raw, headers })
    expect(response.status).toBe(status)
    expectErrorBody(response.body, status, code)
  })

  test('a body over 1 MiB without Content-Length is cut off at the limit', async () => {
    const request = streamed('/v1/track', 'application/json', function* () {
      yield '{"email":"a@b.com","event":"x","data":{"blob":"'
      for (let i = 0; i < 40; i++) yield 'x'.repeat(64 * 1024)
    })
    expect((await request.response).status).toBe(413)
    expect(request.pulled()).toBeLessThan(41)
  })

  test('a form body without Content-Length is cut off at the limit too', async () => {
    const request = streamed('/v1/track', 'application/x-www-form-urlencoded', function* () {
      yield 'email=' + 'a'.repeat(2 * MiB)
    })
    expect((await request.response).status).toBe(413)
  })

  test('a multipart body must declare its length', async () => {
    const request = streamed('/contacts', 'multipart/form-data; boundary=x', function* () {
      yield '--x\r\n\r\n--x--'
    })
    expect((await request.response).status).toBe(411)
  })

  test('through the real listener, a 20 MB body gets the API error body, not a bare 413', async () => {
    const served = await createTestApp()
    await served.app.start()
    const response = await fetch(`${served.app.url}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: 'x'.repeat(20 * MiB),
    })
    const body = (await response.json()) as { requestId: string }
    await served.close()
    expect(response.status).toBe(413)
    expectErrorBody(body, 413, 'PAYLOAD_TOO_LARGE')
    expect(response.headers.get('x-request-id')).toBe(body.requestId)
  })

  test('validation failures are 422 with each field named', async () => {
    const response = await t.request('POST', '/v1/track', { key, body: { email: 42, extra: true } })
    expect(response.status).toBe(422)
    expectErrorBody(response.body, 422, 'VALIDATION_ERROR')
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'email', message: 'Email must be text.', code: 'invalid_type' },
        { field: 'event', message: 'Event is required.', code: 'required' },
        { field: 'extra', message: 'Extra is not a field this request takes.', code: 'unrecognized_keys' },
      ]),
    )
  })

  test('an unexpected failure is 500 with no stack or SQL in the body', async () => {
    const broken = await createTestApp()
    const brokenKey = (await broken.project()).secretKey
    await sql`DROP TABLE events`.execute(broken.app.db)
    const response = await broken.request('POST', '/v1/track', { key: brokenKey, body: { email: 'a@b.com', event: 'x' } })
    await broken.close()
    expect(response.status).toBe(500)
    expectErrorBody(response.body, 500, 'INTERNAL_SERVER_ERROR')
    const text = JSON.stringify(response.body)
    for (const leak of ['events', 'SQL', 'sqlite', 'no such table', 'at ', '.ts']) expect(text).not.toContain(leak)
  })
})

describe('X-Request-Id', () => {
  test('every response carries one, errors included, and the error body repeats it', async () => {
    for (const [method, path] of [['GET', '/health'], ['GET', '/nope'], ['GET', '/contacts']]) {
      const response = await t.request(method!, path!)
      const id = response.headers.get('x-request-id')
      expect(id).toMatch(/^req_/)
      if (response.status >= 400) expect(response.body.requestId).toBe(id)
    }
  })

  test('a sane incoming id is echoed; an insane one is replaced', async () => {
    const sane = await t.request('GET', '/contacts', { key, headers: { 'x-request-id': 'trace-123.abc:9' } })
    expect(sane.headers.get('x-request-id')).toBe('trace-123.abc:9')
    const insane = await t.request('GET', '/nope', { headers: { 'x-request-id': 'x'.repeat(300) } })
    expect(insane.headers.get('x-request-id')).toMatch(/^req_/)
    expect(insane.body.requestId).toBe(insane.headers.get('x-request-id'))
  })
})
