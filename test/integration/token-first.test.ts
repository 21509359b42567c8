// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import * as password from '../../src/core/accounts/password.ts'
import { setupToken } from '../../src/core/accounts/setup.ts'
import { makeAccount, PASSWORD } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/*
 * The routes anyone may call with a link's token check the token before they hash a password
 * (argon2id, 64 MiB each): made-up tokens cost a signature check, never a hash, and spend the
 * address's `unauthenticated` budget, so a flood of them gets 429.
 */

const BUDGET = 30
const SECRET = 'token-first-secret-token-first-secret'
let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ 'unauthenticated-rate-limit-per-minute': String(BUDGET), secret: SECRET })
})
afterAll(() => t.close())

const bogus = 'made-up.token.value'
const ROUTES: Array<[string, string, object]> = [
  ['a password link', '/api/v1/auth/password', { token: bogus, password: PASSWORD }],
  ['the first-run setup', '/api/v1/auth/setup', { token: bogus, email: 'first@example.com', password: PASSWORD }],
  ['an invitation', '/api/v1/invitations/accept', { token: bogus, password: PASSWORD }],
]

async function withHashSpy<T>(run: (hashes: () => number) => Promise<T>): Promise<T> {
  const spy = spyOn(password, 'hashPassword')
  try {
    return await run(() => spy.mock.calls.length)
  } finally {
    spy.mockRestore()
  }
}

describe('a made-up token', () => {
  test.each(ROUTES)('%s: refused (422 naming the token) without hashing the password', async (_, path, body) => {
    await withHashSpy(async (hashes) => {
      const answer = await t.request('POST', path, { body })
      expect(answer.status).toBe(422)
      expect(answer.body.errors[0].field).toBe('token')
      expect(hashes()).toBe(0)
    })
  })

  test('the setup after it is done: refused with 409, even with a genuine token, and nothing hashed', async () => {
    const genuine = setupToken(SECRET, Date.now())
    await makeAccount(t, 'owner@example.com')
    await withHashSpy(async (hashes) => {
      const answer = await t.request('POST', '/api/v1/auth/setup', { body: { token: genuine, email: 'late@example.com', password: PASSWORD } })
      expect(answer.status).toBe(409)
      expect(hashes()).toBe(0)
    })
  })

  test(`24 at once on each route: not one hash; then the address's budget of ${BUDGET} is spent and the rest get 429`, async () => {
    await withHashSpy(async (hashes) => {
      const answers = await Promise.all(ROUTES.flatMap(([, path, body]) => Array.from({ length: 24 }, () => t.request('POST', path, { body }))))
      expect(hashes()).toBe(0)
      expect(answers.every((a) => [409, 422, 429].includes(a.status))).toBe(true)
      expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0)
      const late = await t.request('POST', '/api/v1/auth/password', { body: ROUTES[0]![2] })
      expect(late.status).toBe(429)
      expect(late.body.code).toBe('RATE_LIMITED')
      // Looking an invitation up with a made-up token is refused the same way, and counted the same.
      expect((await t.request('POST', '/api/v1/invitations/lookup', { body: { token: bogus } })).status).toBe(429)
    })
  })
})
