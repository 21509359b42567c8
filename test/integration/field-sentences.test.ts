// @database-incidental: the HTTP protocol (the error body's words); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia, t as types } from 'elysia'
import { errorBody, toAppError } from '../../src/http/error-body.ts'
import { silentLogger } from '../../src/lib/logger.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/*
 * Each field problem of a 422 is a sentence a person reads beside the field, naming it in words;
 * the field path and the code stay for programs. First through the server's own routes, then each
 * kind of schema rule through an app handling its errors exactly as the server does.
 */

let t: TestApp
let key: string

beforeAll(async () => {
  t = await createTestApp()
  key = (await t.project()).secretKey
})
afterAll(() => t.close())

const problems = async (method: string, path: string, body?: unknown) => {
  const response = await t.request(method, path, { key, body })
  expect(response.status).toBe(422)
  return response.body.errors as Array<{ field: string; message: string; code: string }>
}

describe("the server's routes say what is wrong in sentences", () => {
  test('a required field', async () => {
    expect(await problems('POST', '/v1/track', { email: 'jane@example.com' })).toEqual([{ field: 'event', message: 'Event is required.', code: 'required' }])
  })
  test('a webhook address that is not a URL, and one that cannot be called', async () => {
    expect(await problems('POST', '/webhooks', { url: '', events: ['*'] })).toEqual([{ field: 'url', message: 'Enter a full URL, for example https://example.com/webhooks.', code: 'invalid_string' }])
    const [refused] = await problems('POST', '/webhooks', { url: 'ftp://example.com/hook', events: ['*'] })
    expect(refused!.message).toStartWith('The URL cannot be called: ')
    expect(refused!.message).toEndWith('.')
  })
  test('a choice', async () => {
    expect(await problems('POST', '/templates', { name: 'T', subject: 's', body: 'b', type: 'X' })).toEqual([
      { field: 'type', message: 'Choose one of these for type: TRANSACTIONAL, MARKETING, HEADLESS.', code: 'invalid_enum_value' },
    ])
  })
  test('a number out of its range, and a number or nothing', async () => {
    expect(await problems('GET', '/contacts?limit=101')).toEqual([{ field: 'limit', message: 'Limit must be a whole number from 1 to 100.', code: 'too_big' }])
    const [rate] = await problems('PATCH', '/api/v1/project', { sendRatePerSecond: 0 })
    expect(rate).toMatchObject({ field: 'sendRatePerSecond', code: 'invalid_type' })
    expect(rate!.message).toBe("Send rate per second must be a whole number of 1 or more, or null.")
  })
  test('a date and time, and a field the route does not take', async () => {
    const [time] = await problems('POST', '/api/v1/emails', { to: 'a@example.net', from: 'shop@example.com', subject: 'x', html: 'y', scheduledAt: 'tomorrow' })
    expect(time).toMatchObject({ field: 'scheduledAt' })
    expect(time!.message).toStartWith('Scheduled time must be')
    expect(await problems('POST', '/v1/track', { email: 'jane@example.com', event: 'signup', colour: 'red' })).toEqual([
      { field: 'colour', message: 'Colour is not a field this request takes.', code: 'unrecognized_keys' },
    ])
  })
  test("the body's message is the sentences, so a client that shows only it reads them too", async () => {
    const response = await t.request('POST', '/v1/track', { key, body: {} })
    expect(response.body.message).toBe('Email is required. Event is required.')
    expect(response.body.error.message).toBe(response.body.message)
  })
})

describe('each kind of rule, through HTTP', () => {
  const app = new Elysia()
    .onError(({ code, error, request, set }) => {
      const failure = toAppError(code, error, request, silentLogger)
      set.status = failure.status
      return errorBody('req_test', failure)
    })
    .post('/form', () => ({ ok: true }), {
      body: types.Object({
        url: types.Optional(types.String({ format: 'uri' })),
        email: types.Optional(types.String({ format: 'email' })),
        id: types.Optional(types.String({ format: 'uuid' })),
        sendAt: types.Optional(types.String({ format: 'date-time' })),
        name: types.Optional(types.String({ minLength: 1, maxLength: 5 })),
        count: types.Optional(types.Number({ minimum: 1, maximum: 9 })),
        code: types.Optional(types.String({ pattern: '^[0-9]{6}$' })),
        role: types.Optional(types.UnionEnum(['owner', 'viewer'])),
      }),
    })
  const sentence = async (body: unknown) => {
    const response = await app.handle(new Request('http://localhost/form', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
    expect(response.status).toBe(422)
    return ((await response.json()) as { errors: Array<{ message: string }> }).errors[0]!.message
  }
  test.each([
    ['url', { url: '' }, 'Enter a full URL, for example https://example.com/webhooks.'],
    ['email', { email: 'jane' }, 'Enter an email address for email, for example jane@example.com.'],
    ['uuid', { id: '42' }, 'ID must be an id like 0b6f3c1e-4f6a-4c1d-9a55-5f1e6a2b7c3d.'],
    ['date-time', { sendAt: 'soon' }, 'Enter send time as a date and time, for example 2026-05-01T09:30:00Z.'],
    ['minLength', { name: '' }, 'Name must not be empty.'],
    ['maxLength', { name: 'abcdef' }, 'Name must be at most 5 characters.'],
    ['minimum', { count: 0 }, 'Count must be at least 1.'],
    ['maximum', { count: 10 }, 'Count must be at most 9.'],
    ['pattern', { code: 'abc' }, 'Code is not in the expected form.'],
    ['enum', { role: 'king' }, 'Choose one of these for role: owner, viewer.'],
  ])('%s', async (_, body, expected) => {
    expect(await sentence(body)).toBe(expected)
  })
})
