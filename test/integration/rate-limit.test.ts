// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generateKey } from '../../src/core/projects/keys.ts'
import { listKeys, revokeKey, setProjectRateLimit } from '../../src/core/projects/projects.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

let t: TestApp
const clock = new ManualClock(Date.parse('2026-11-01T12:00:10Z'))

beforeAll(async () => {
  t = await createTestApp(
    {
      'rate-limit-per-minute': '5',
      'track-rate-limit-per-minute': '8',
      'track-rate-limit-per-address-per-minute': '4',
      'unauthenticated-rate-limit-per-minute': '3',
    },
    { clock },
  )
})

afterAll(() => t.close())

/** Every request of these tests comes from one address: `app.handle` has no socket. */
const track = (key: string, n = 1) => t.request('POST', '/v1/track', { key, body: { email: `visitor${n}@example.com`, event: 'viewed' } })

describe('the secret-key budget', () => {
  test('counts each request, then answers 429 naming the budget, with Retry-After, until the oldest request is a minute old', async () => {
    const { secretKey } = await t.project('Limited')
    for (let i = 1; i <= 5; i++) {
      const ok = await t.request('GET', '/contacts', { key: secretKey })
      expect(ok.status).toBe(200)
      expect(ok.headers.get('x-ratelimit-limit')).toBe('5')
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(5 - i))
      expect(ok.headers.get('x-ratelimit-scope')).toBe('secret-key')
      expect(ok.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-01T12:01:11Z') / 1000))
    }
    const limited = await t.request('GET', '/contacts', { key: secretKey })
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED', statusCode: 429 })
    expect(limited.body.message).toBe("The project's secret-key budget of 5 requests a minute is spent")
    expect(limited.headers.get('retry-after')).toBe('61')
    expect(limited.headers.get('x-ratelimit-scope')).toBe('secret-key')
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(limited.headers.get('x-request-id')).toMatch(/^req_/)

    const other = await t.project('Neighbour')
    expect((await t.request('GET', '/contacts', { key: other.secretKey })).status).toBe(200)

    clock.advance(60_000)
    expect((await t.request('GET', '/contacts', { key: secretKey })).status).toBe(429)
    clock.advance(1000)
    expect((await t.request('GET', '/contacts', { key: secretKey })).status).toBe(200)
  })

  test('a burst straddling the edge of a minute passes the limit once, not twice', async () => {
    const { secretKey } = await t.project('Straddler')
    const startAt = Date.parse('2026-11-01T12:05:59.600Z')
    clock.advance(startAt - clock.now())
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await t.request('GET', '/contacts', { key: secretKey })).status)
    clock.advance(800)
    for (let i = 0; i < 5; i++) statuses.push((await t.request('GET', '/contacts', { key: secretKey })).status)
    clock.advance(58_000)
    for (let i = 0; i < 5; i++) statuses.push((await t.request('GET', '/contacts', { key: secretKey })).status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(5)
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true)
  })

  test('a per-project override takes effect on the next request', async () => {
    const project = await t.project('Raised')
    await t.app.writer.run((trx) => setProjectRateLimit(trx, project.id, 8, clock.now()))
    for (let i = 0; i < 8; i++) expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    const limited = await t.request('GET', '/contacts', { key: project.secretKey })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('x-ratelimit-limit')).toBe('8')
  })
})

describe('the public-key budget', () => {
  test('a flood of public-key tracks is refused on its own budget, and the secret key goes on working', async () => {
    const project = await t.project('Tracked')
    const statuses = []
    for (let i = 0; i < 1000; i++) statuses.push((await track(project.publicKey, i)).status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(4)
    const refused = await track(project.publicKey)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('x-ratelimit-scope')).toBe('public-key-address')
    expect(refused.body.message).toBe("The project's public-key budget for your address, 4 requests a minute, is spent")
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)

    const secret = await t.request('GET', '/contacts', { key: project.secretKey })
    expect(secret.status).toBe(200)
    expect(secret.headers.get('x-ratelimit-remaining')).toBe('4')
    expect((await track(project.secretKey)).status).toBe(200)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).headers.get('x-ratelimit-remaining')).toBe('2')
  })

  test('a public key spends nothing of its own project\'s secret-key budget, and the reverse', async () => {
    const project = await t.project('Both ways')
    for (let i = 0; i < 5; i++) await t.request('GET', '/contacts', { key: project.secretKey })
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(429)
    const tracked = await track(project.publicKey)
    expect(tracked.status).toBe(200)
    expect(tracked.headers.get('x-ratelimit-scope')).toBe('public-key-address')
    expect(tracked.headers.get('x-ratelimit-remaining')).toBe('3')
  })
})

describe('requests without a valid key', () => {
  test('are limited per address, missing, malformed, unknown and revoked alike, and a right key from that address still works', async () => {
    clock.advance(120_000)
    const project = await t.project('Beside a guesser')
    const gone = await t.project('Gone')
    const [goneKey] = await listKeys(t.app.db, gone.id)
    await t.app.writer.run((trx) => revokeKey(trx, goneKey!.id, clock.now()))
    const wrong: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer sk_short' },
      { authorization: `Bearer ${gone.secretKey}` },
    ]
    for (const headers of wrong) expect((await t.request('GET', '/contacts', { headers })).status).toBe(401)
    for (const headers of [...wrong, { authorization: `Bearer ${generateKey('public').key}` }, { authorization: `Bearer ${generateKey('secret').key}` }]) {
      const refused = await t.request('GET', '/contacts', { headers })
      expect(refused.status).toBe(429)
      expect(refused.headers.get('x-ratelimit-scope')).toBe('unauthenticated')
      expect(refused.body.message).toBe('Too many requests without a valid API key from your address: at most 3 a minute')
      expect(refused.headers.get('retry-after')).toBe('61')
    }
    const right = await t.request('GET', '/contacts', { key: project.secretKey })
    expect(right.status).toBe(200)
    expect((await track(project.publicKey)).status).toBe(200)

    clock.advance(61_000)
    expect((await t.request('GET', '/contacts', { headers: wrong[2]! })).status).toBe(401)
  })
})
