// @database
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import pg from 'pg'
import { generateKey } from '../../src/core/projects/keys.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { HttpSocket, type SocketResponse } from '../helpers/http-socket.ts'
import { onPostgres } from '../helpers/postgres.ts'

/** The `unauthenticated` budget is raised here so that its 429 does not hide what the throttle does. */
let t: TestApp
let project: { secretKey: string; publicKey: string }
const wrongKey = generateKey('secret').key

beforeAll(async () => {
  // The HTTP role alone: no loop polls the database while a spy below counts a request's statements.
  t = await createTestApp({ 'unauthenticated-rate-limit-per-minute': '1000', role: 'http' })
  await t.app.start()
  project = await t.project('Beside a guesser')
})

afterAll(() => t.close())

/** One request from `from` (a loopback address) on its own connection, and how long it took. */
async function from(address: string, key: string | undefined, track?: object): Promise<SocketResponse & { ms: number }> {
  const socket = await HttpSocket.open(Number(new URL(t.app.url).port), address)
  const began = Date.now()
  try {
    const headers = key === undefined ? undefined : { authorization: `Bearer ${key}` }
    const response = track ? await socket.request('POST', '/v1/track', { headers, body: track }) : await socket.request('GET', '/contacts', { headers })
    return { ...response, ms: Date.now() - began }
  } finally {
    socket.close()
  }
}

const malformed: Array<[string, string | undefined]> = [
  ['no key', undefined],
  ['a key too short', 'sk_short'],
  ['a key one character too long', `${wrongKey}x`],
  ['another marker', `xk_${wrongKey.slice(3)}`],
  ['a character no key holds', `pk_${wrongKey.slice(3, -1)}!`],
  ['a key in capitals', wrongKey.toUpperCase()],
]

/** Watches every statement sent to the database: bun:sqlite's, or pg's client's. */
const spyOnQueries = () => (onPostgres ? spyOn(pg.Client.prototype as { query(...args: unknown[]): unknown }, 'query') : spyOn(Database.prototype, 'query'))

/**
 * The statements a spy saw, but those of the shared rate limits and the transactions they run
 * in: a refused request still counts against the `unauthenticated` budget, which every process
 * shares through the database and which takes its tokens a few at a time
 * (src/cluster/shared-window.ts). The process's own heartbeat (renewing its claims and leases,
 * src/cluster/claim-keeper.ts) may run meanwhile, and is no work of the request's either.
 */
const lookups = (queries: ReturnType<typeof spyOnQueries>) =>
  queries.mock.calls
    .map(([query]) => (typeof query === 'string' ? query : String((query as { text?: string })?.text ?? '')))
    .filter((text) => !/rate_limits|lease_until|"leases"/.test(text) && !/^(BEGIN|SAVEPOINT|RELEASE|COMMIT|ROLLBACK)\b/i.test(text))

describe('keys that are not of a key\'s shape', () => {
  test.each(malformed)('%s: 401 with no database work but its count in the shared budget', async (_, key) => {
    const queries = spyOnQueries()
    try {
      const response = await t.request('GET', '/contacts', { ...(key !== undefined && { headers: { authorization: `Bearer ${key}` } }) })
      expect(response.status).toBe(401)
      expect(response.body.code).toBe('UNAUTHORIZED')
      expect(lookups(queries)).toEqual([])
    } finally {
      queries.mockRestore()
    }
  })

  test('a well-formed unknown key is looked up: the spy above would see it', async () => {
    const queries = spyOnQueries()
    try {
      expect((await t.request('GET', '/contacts', { key: wrongKey })).status).toBe(401)
      expect(lookups(queries).some((text) => text.includes('api_keys'))).toBe(true)
    } finally {
      queries.mockRestore()
    }
  })

  test('are no guess at a key, so they do not slow the address: its right key then waits only for its real failures', async () => {
    for (const [, key] of malformed) for (let i = 0; i < 3; i++) expect((await from('127.0.0.30', key)).status).toBe(401)
    for (let i = 0; i < 3; i++) expect((await from('127.0.0.30', wrongKey)).status).toBe(401)
    // Three failures make the next login wait 0.5 s; had the 18 malformed keys counted, 8 s.
    const right = await from('127.0.0.30', project.secretKey)
    expect(right.status).toBe(200)
    expect(right.ms).toBeGreaterThanOrEqual(450)
    expect(right.ms).toBeLessThan(4000)
  }, 30_000)
})

describe('failed logins over HTTP', () => {
  test('slow every later request from the address before its key is checked; the right key then passes, and other addresses are not slowed', async () => {
    const first = []
    for (let i = 0; i < 3; i++) first.push(await from('127.0.0.31', wrongKey))
    expect(first.map((r) => r.status)).toEqual([401, 401, 401])

    const right = await from('127.0.0.31', project.secretKey)
    expect(right.status).toBe(200)
    expect(right.ms).toBeGreaterThanOrEqual(450)
    const tracked = await from('127.0.0.31', project.publicKey, { email: 'visitor@example.com', event: 'viewed' })
    expect(tracked.status).toBe(200)
    expect(tracked.ms).toBeGreaterThanOrEqual(450)
    // A wrong key waits as long as a right one: a guesser cannot stop waiting early and conclude.
    const wrong = await from('127.0.0.31', wrongKey)
    expect(wrong.status).toBe(401)
    expect(wrong.ms).toBeGreaterThanOrEqual(450)

    const elsewhere = await from('127.0.0.32', project.secretKey)
    expect(elsewhere.status).toBe(200)
    expect(elsewhere.ms).toBeLessThan(wrong.ms)
  }, 30_000)

  test('many logins sent at once from a slowed address: eight wait, the rest are turned away unchecked, right key or wrong, and the right key then passes', async () => {
    for (let i = 0; i < 5; i++) expect((await from('127.0.0.33', wrongKey)).status).toBe(401)
    // Five failures: a login now waits 2 s, and each sent beside it counts too (4 s, then 8 s). Eight of them wait at once...
    // Eight different guesses: one key sent eight times at once would be one guess, checked once.
    const waiting = Array.from({ length: 8 }, () => from('127.0.0.33', generateKey('secret').key))
    await Bun.sleep(500)
    // ...and a ninth is answered at once, the same whatever its key, after the longest wait (five failures and eight under way).
    const [rightTurned, wrongTurned] = await Promise.all([from('127.0.0.33', project.secretKey), from('127.0.0.33', generateKey('secret').key)])
    for (const turned of [rightTurned, wrongTurned]) {
      expect(turned.status).toBe(429)
      expect(turned.body).toMatchObject({ code: 'RATE_LIMITED', message: 'Too many logins from your address are waiting after failed ones: at most 8 at once' })
      expect(turned.headers['retry-after']).toBe('8')
      expect(turned.headers['x-ratelimit-scope']).toBe('login')
    }
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual(Array(8).fill(401))
    // Thirteen failures: the longest wait, 8 s, and no refusal.
    const right = await from('127.0.0.33', project.secretKey)
    expect(right.status).toBe(200)
    expect(right.ms).toBeGreaterThanOrEqual(7500)
  }, 30_000)

  test('an IPv4 client is one address and IPv6 is counted by its /64, behind a trusted proxy too', async () => {
    const proxied = await createTestApp({ 'unauthenticated-rate-limit-per-minute': '1000', 'trusted-proxies': '127.0.0.1' })
    await proxied.app.start()
    try {
      const { secretKey } = await proxied.project('Proxied')
      const socket = await HttpSocket.open(Number(new URL(proxied.app.url).port), '127.0.0.1')
      const timed = async (key: string, client: string) => {
        const began = Date.now()
        const response = await socket.request('GET', '/contacts', { key, headers: { 'x-forwarded-for': client } })
        return { status: response.status, ms: Date.now() - began }
      }
      for (const suffix of ['1', '2', 'ffff']) expect((await timed(wrongKey, `2001:db8:7:1::${suffix}`)).status).toBe(401)
      const sameBlock = await timed(secretKey, '2001:db8:7:1::abcd')
      expect(sameBlock.status).toBe(200)
      expect(sameBlock.ms).toBeGreaterThanOrEqual(450)
      const otherBlock = await timed(secretKey, '2001:db8:7:2::1')
      expect(otherBlock.status).toBe(200)
      expect(otherBlock.ms).toBeLessThan(sameBlock.ms)
      socket.close()
    } finally {
      await proxied.close()
    }
  }, 30_000)
})
