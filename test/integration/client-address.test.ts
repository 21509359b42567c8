// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generateKey } from '../../src/core/projects/keys.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { HttpSocket } from '../helpers/http-socket.ts'

/** Each server counts failed keys, and public-key tracks, per client address. */
const LIMITS = {
  'unauthenticated-rate-limit-per-minute': '3',
  'track-rate-limit-per-minute': '5',
  'track-rate-limit-per-address-per-minute': '2',
}
let direct: TestApp
let proxied: TestApp
const wrongKey = generateKey('secret').key

beforeAll(async () => {
  direct = await createTestApp(LIMITS)
  proxied = await createTestApp({ ...LIMITS, 'trusted-proxies': '127.0.0.1,::1' })
  await direct.app.start()
  await proxied.app.start()
})

afterAll(async () => {
  await direct.close()
  await proxied.close()
})

const portOf = (t: TestApp) => Number(new URL(t.app.url).port)

/** One request with a wrong key from `from`, saying the client is `forwardedFor`. */
async function wrongFrom(t: TestApp, from: string, forwardedFor?: string): Promise<number> {
  const socket = await HttpSocket.open(portOf(t), from)
  try {
    const headers = forwardedFor ? { 'x-forwarded-for': forwardedFor } : undefined
    return (await socket.request('GET', '/contacts', { key: wrongKey, headers })).status
  } finally {
    socket.close()
  }
}

describe('the client address, without trusted proxies', () => {
  test('is the socket\'s peer: each address has its own budget of failed keys, whatever X-Forwarded-For says', async () => {
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push(await wrongFrom(direct, '127.0.0.2', `198.51.100.${i}`))
    expect(statuses).toEqual([401, 401, 401, 429, 429])
    expect(await wrongFrom(direct, '127.0.0.3')).toBe(401)
  })

  test('many addresses each get their share of a public key\'s budget, and together no more than the project\'s', async () => {
    const project = await direct.project('Widget')
    const sockets = await Promise.all(['127.0.0.4', '127.0.0.5', '127.0.0.6'].map((address) => HttpSocket.open(portOf(direct), address)))
    const seen: string[] = []
    for (const [index, socket] of sockets.entries()) {
      for (let i = 0; i < 3; i++) {
        const response = await socket.request('POST', '/v1/track', { key: project.publicKey, body: { email: `v${index}-${i}@example.com`, event: 'seen' } })
        // A refusal other than a 429 would show its status too.
        seen.push(response.status === 200 ? 'ok' : response.status === 429 ? response.headers['x-ratelimit-scope']! : `${response.status} ${JSON.stringify(response.body)}`)
      }
    }
    // The third address's second request fits its own share but not the project's budget, which
    // the first two addresses and its first have spent.
    expect(seen).toEqual(['ok', 'ok', 'public-key-address', 'ok', 'ok', 'public-key-address', 'ok', 'public-key', 'public-key-address'])
    for (const socket of sockets) expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    for (const socket of sockets) socket.close()
  })
})

describe('the client address, behind a trusted proxy', () => {
  test('is the last address the proxy added, not what the client wrote to the left of it', async () => {
    const statuses = []
    for (const spoof of ['6.6.6.6', '7.7.7.7', '8.8.8.8', '9.9.9.9']) statuses.push(await wrongFrom(proxied, '127.0.0.1', `${spoof}, 198.51.100.7`))
    expect(statuses).toEqual([401, 401, 401, 429])
    expect(await wrongFrom(proxied, '127.0.0.1', '198.51.100.8')).toBe(401)
  })

  test('is the socket\'s peer when that peer is not a trusted proxy', async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push(await wrongFrom(proxied, '127.0.0.9', `198.51.100.${20 + i}`))
    expect(statuses).toEqual([401, 401, 401, 429])
  })

  test('an IPv6 client is counted by its /64, so new addresses of one subscriber get no new budget', async () => {
    const statuses = []
    for (const suffix of ['1', '2', 'ffff', 'abcd:1234']) statuses.push(await wrongFrom(proxied, '127.0.0.1', `2001:db8:1:2::${suffix}`))
    expect(statuses).toEqual([401, 401, 401, 429])
    expect(await wrongFrom(proxied, '127.0.0.1', '2001:db8:1:3::1')).toBe(401)
  })
})
