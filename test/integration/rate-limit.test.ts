import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { setProjectRateLimit } from '../../src/core/projects/projects.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

let t: TestApp
const clock = new ManualClock(Date.parse('2026-11-01T12:00:10Z'))

beforeAll(async () => {
  t = await createTestApp({ 'rate-limit-per-minute': '5' }, { clock })
})

afterAll(() => t.close())

describe('rate limit per project', () => {
  test('counts each request, then answers 429 with Retry-After until the minute is over', async () => {
    const { secretKey } = await t.project('Limited')
    for (let i = 1; i <= 5; i++) {
      const ok = await t.request('GET', '/contacts', { key: secretKey })
      expect(ok.status).toBe(200)
      expect(ok.headers.get('x-ratelimit-limit')).toBe('5')
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(5 - i))
      expect(ok.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-01T12:01:00Z') / 1000))
    }
    const limited = await t.request('GET', '/contacts', { key: secretKey })
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED', statusCode: 429 })
    expect(limited.headers.get('retry-after')).toBe('50')
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(limited.headers.get('x-request-id')).toMatch(/^req_/)

    const other = await t.project('Neighbour')
    expect((await t.request('GET', '/contacts', { key: other.secretKey })).status).toBe(200)

    clock.advance(50_000)
    expect((await t.request('GET', '/contacts', { key: secretKey })).status).toBe(200)
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
