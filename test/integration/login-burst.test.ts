// @database
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import pg from 'pg'
import * as password from '../../src/core/accounts/password.ts'
import { createAccount } from '../../src/core/accounts/accounts.service.ts'
import { generateKey } from '../../src/core/projects/keys.ts'
import { MAX_WAITING } from '../../src/lib/auth-throttle.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { HttpSocket } from '../helpers/http-socket.ts'
import { onPostgres } from '../helpers/postgres.ts'

/*
 * Logins sent all at once: the throttle counts each from its start, so a burst of any size gets
 * at most three checks at once and eight after waiting (docs/security.md), then 429, per address
 * and per account. The checks are counted where they happen: the password hash's verification,
 * and the key lookups in the database.
 */

const MOST = 3 + MAX_WAITING
const BURST = 64

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ 'unauthenticated-rate-limit-per-minute': '100000' })
  await t.app.start()
  for (const who of ['burst', 'spread', 'right']) await makeAccount(t, `${who}@example.com`)
})
afterAll(() => t.close())

/** One request on its own connection from `address`. */
async function from(address: string, method: string, path: string, options: { key?: string; body?: unknown }) {
  const socket = await HttpSocket.open(Number(new URL(t.app.url).port), address)
  try {
    // The last of a burst waits 8 s behind the others, then for a password's hash on a busy machine.
    return await socket.request(method, path, { ...options, timeoutMs: 25_000 })
  } finally {
    socket.close()
  }
}

const signInFrom = (address: string, email: string, guess: string) => from(address, 'POST', '/api/v1/auth/sign-in', { body: { email, password: guess } })

describe('a burst of wrong passwords', () => {
  test(`${BURST} at one account from a new address: at most ${MOST} reach the password check, the rest get 429`, async () => {
    const checks = spyOn(password, 'verifyPassword')
    try {
      const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => signInFrom('127.0.0.60', 'burst@example.com', `wrong guess ${i}`)))
      expect(checks.mock.calls.length).toBeLessThanOrEqual(MOST)
      expect(answers.filter((a) => a.status === 401).length).toBe(checks.mock.calls.length)
      expect(answers.filter((a) => a.status === 429).length).toBe(BURST - checks.mock.calls.length)
    } finally {
      checks.mockRestore()
    }
  }, 45_000)

  test(`${BURST} at one account from ${BURST} addresses: the account's count holds them to ${MOST} as well`, async () => {
    const checks = spyOn(password, 'verifyPassword')
    try {
      const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => signInFrom(`127.0.1.${i + 1}`, 'spread@example.com', `wrong guess ${i}`)))
      expect(checks.mock.calls.length).toBeLessThanOrEqual(MOST)
      expect(answers.filter((a) => a.status === 429).length).toBe(BURST - checks.mock.calls.length)
    } finally {
      checks.mockRestore()
    }
  }, 45_000)

  test(`${BURST} at ${BURST} accounts from ${BURST} addresses (which the throttle counts apart): at most ${password.MAX_HASHING} hashes run at once`, async () => {
    const hash = await password.hashPassword('correct horse battery staple')
    for (let i = 0; i < BURST; i++) await t.app.writer.run((trx) => createAccount(trx, `crowd${i}@example.com`, hash, Date.now()))
    const verify = Bun.password.verify
    let running = 0
    let most = 0
    const spy = spyOn(Bun.password, 'verify').mockImplementation(async (...args: Parameters<typeof verify>) => {
      most = Math.max(most, ++running)
      try {
        return await verify.apply(Bun.password, args)
      } finally {
        running--
      }
    })
    try {
      const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => signInFrom(`127.0.2.${i + 1}`, `crowd${i}@example.com`, 'wrong guess')))
      expect(answers.every((a) => a.status === 401)).toBe(true)
      // Reached, never passed: the crowd waited its turn.
      expect(most).toBe(password.MAX_HASHING)
    } finally {
      spy.mockRestore()
    }
  }, 60_000)

  test('a right password sent alone from a clean address and to a clean account is checked at once', async () => {
    const began = Date.now()
    expect((await signInFrom('127.0.0.61', 'right@example.com', 'correct horse battery staple')).status).toBe(200)
    expect(Date.now() - began).toBeLessThan(2000)
  })
})

/** Watches the statements sent to the database, to count the key lookups (see login-throttle.test.ts). */
const spyOnQueries = () => (onPostgres ? spyOn(pg.Client.prototype as { query(...args: unknown[]): unknown }, 'query') : spyOn(Database.prototype, 'query'))
const keyLookups = (queries: ReturnType<typeof spyOnQueries>) =>
  queries.mock.calls.map(([query]) => (typeof query === 'string' ? query : String((query as { text?: string })?.text ?? ''))).filter((text) => /from "api_keys"/i.test(text)).length

describe('a burst of wrong API keys', () => {
  test(`${BURST} different ones from one address: at most ${MOST} are looked up, the rest get 429`, async () => {
    const queries = spyOnQueries()
    try {
      const answers = await Promise.all(Array.from({ length: BURST }, () => from('127.0.0.62', 'GET', '/contacts', { key: generateKey('secret').key })))
      expect(keyLookups(queries)).toBeGreaterThan(0)
      expect(keyLookups(queries)).toBeLessThanOrEqual(MOST)
      expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(BURST - MOST)
    } finally {
      queries.mockRestore()
    }
  }, 45_000)

  test(`one wrong key ${BURST} times at once from one address: one guess, looked up once, every request refused`, async () => {
    const queries = spyOnQueries()
    try {
      const wrong = generateKey('secret').key
      const answers = await Promise.all(Array.from({ length: BURST }, () => from('127.0.0.65', 'GET', '/contacts', { key: wrong })))
      expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true)
      expect(keyLookups(queries)).toBe(1)
    } finally {
      queries.mockRestore()
    }
  }, 45_000)

  test('an application\'s right key not yet accepted, sent in parallel from a clean address (a cold start): looked up once, every request served', async () => {
    const { secretKey } = await t.project('Cold start')
    const queries = spyOnQueries()
    try {
      const answers = await Promise.all(Array.from({ length: BURST }, () => from('127.0.0.64', 'GET', '/contacts', { key: secretKey })))
      expect(answers.map((a) => a.status)).toEqual(Array(BURST).fill(200))
      expect(keyLookups(queries)).toBe(1)
    } finally {
      queries.mockRestore()
    }
  }, 45_000)

  test('an application\'s right key, sent in parallel from a clean address once accepted, is not slowed', async () => {
    const { secretKey } = await t.project('Busy app')
    expect((await from('127.0.0.63', 'GET', '/contacts', { key: secretKey })).status).toBe(200)
    const began = Date.now()
    const answers = await Promise.all(Array.from({ length: BURST }, () => from('127.0.0.63', 'GET', '/contacts', { key: secretKey })))
    expect(answers.map((a) => a.status)).toEqual(Array(BURST).fill(200))
    expect(Date.now() - began).toBeLessThan(3000)
  }, 45_000)
})
