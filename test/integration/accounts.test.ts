// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createLogger } from '../../src/lib/logger.ts'
import { browserOf, cookieOf, makeAccount, PASSWORD, signIn } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { ManualClock } from '../helpers/clock.ts'
import { HttpSocket } from '../helpers/http-socket.ts'

/*
 * Accounts and sessions through HTTP: the first-run setup, signing in and out, the session
 * cookie, CSRF, expiry, the CLI's user commands, and what is never logged or returned.
 */

const logs: string[] = []
let t: TestApp
/** An app whose clock the tests move, on a database of its own. */
const clock = new ManualClock(Date.now())
let timed: TestApp
const flagsOf = (app: TestApp) => ['--data-dir', app.dataDir, ...app.databaseFlags, '--secret', 'test-secret-test-secret-test-secret', '--public-url', 'https://mail.example.com']
let cliFlags: string[]

beforeAll(async () => {
  t = await createTestApp({ 'log-level': 'debug' }, { logger: createLogger('debug', (line) => logs.push(line)) })
  await t.app.start()
  cliFlags = flagsOf(t)
  timed = await createTestApp({ 'trusted-proxies': '127.0.0.1' }, { clock })
  await timed.app.start()
  await makeAccount(timed, 'jane@example.com')
})

afterAll(async () => {
  await t.close()
  await timed.close()
})

const setupToken = () => {
  const line = logs.find((l) => l.includes('"SETUP"'))
  return decodeURIComponent(/token=([^ "]+)/.exec(line ?? '')![1]!)
}

describe('the first-run setup', () => {
  test('the server logs a one-time link while no account exists; a forged token changes nothing', async () => {
    expect((await t.request('GET', '/api/v1/auth/setup')).body).toEqual({ open: true })
    const token = setupToken()
    const forged = await t.request('POST', '/api/v1/auth/setup', { body: { token: token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a'), email: 'owner@example.com', password: PASSWORD } })
    expect(forged.status).toBe(422)
    expect(forged.body.errors).toMatchObject([{ field: 'token', message: expect.stringContaining('not valid') }])
    expect((await t.request('GET', '/api/v1/auth/setup')).body).toEqual({ open: true })
  })

  test('with the logged token, makes the first account and signs it in; a second setup is refused', async () => {
    const token = setupToken()
    const made = await t.request('POST', '/api/v1/auth/setup', { body: { token, email: 'Owner@Example.com', password: PASSWORD } })
    expect(made.status).toBe(201)
    expect(made.body.account).toMatchObject({ email: 'Owner@Example.com', passwordSet: true, disabled: false })
    expect(made.headers.get('set-cookie')).toMatch(/^mailstead_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/)
    const session = await t.request('GET', '/api/v1/auth/session', { headers: { cookie: cookieOf(made) } })
    expect(session.status).toBe(200)
    expect(session.body.account.email).toBe('Owner@Example.com')

    const again = await t.request('POST', '/api/v1/auth/setup', { body: { token, email: 'other@example.com', password: PASSWORD } })
    expect(again.status).toBe(409)
    expect((await t.request('GET', '/api/v1/auth/setup')).body).toEqual({ open: false })
  })
})

describe('signing in', () => {
  beforeAll(() => makeAccount(t, 'jane@example.com'))

  test('with the right password: an HttpOnly, SameSite=Lax cookie and a CSRF token; never the session token in the body', async () => {
    const response = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'JANE@example.com', password: PASSWORD } })
    expect(response.status).toBe(200)
    const cookie = cookieOf(response)
    expect(response.headers.get('set-cookie')).toContain('HttpOnly; SameSite=Lax')
    expect(response.headers.get('set-cookie')).not.toContain('Secure')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(JSON.stringify(response.body)).not.toContain(cookie.split('=')[1]!)
    expect(response.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  test.each([
    ['a wrong password', { email: 'jane@example.com', password: 'wrong password here' }],
    ['an unknown email', { email: 'nobody@example.com', password: PASSWORD }],
  ])('with %s: the same 401, and no cookie', async (_, body) => {
    const response = await t.request('POST', '/api/v1/auth/sign-in', { body })
    expect(response.status).toBe(401)
    expect(response.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'Wrong email or password' })
    expect(response.headers.get('set-cookie')).toBeNull()
  })

  test('from another origin is refused before the password is checked', async () => {
    const response = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD }, headers: { origin: 'https://evil.example' } })
    expect(response.status).toBe(403)
    expect(response.body.code).toBe('CSRF_REJECTED')
  })

  test('failures to one account are throttled whatever address they come from: once it is slowed, a ninth waiting attempt is turned away', async () => {
    await makeAccount(t, 'target@example.com')
    for (let i = 0; i < 3; i++) expect((await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'target@example.com', password: `guess number ${i}` } })).status).toBe(401)
    const attempts = Array.from({ length: 9 }, () => t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'target@example.com', password: PASSWORD } }))
    const statuses = (await Promise.all(attempts)).map((r) => r.status).sort()
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429])
    // Another account is not slowed by them.
    expect((await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD } })).status).toBe(200)
  })
})

describe('a session cookie', () => {
  test('signs out with its CSRF token; without it, or from another origin, the write is refused and the session stays', async () => {
    const browser = await signIn(t, 'jane@example.com')
    const noToken = await t.request('POST', '/api/v1/auth/sign-out', { headers: browser.headers({ csrf: false }) })
    expect(noToken.status).toBe(403)
    expect(noToken.body.code).toBe('CSRF_REJECTED')
    const wrongToken = await t.request('POST', '/api/v1/auth/sign-out', { headers: { ...browser.headers(), 'x-csrf-token': 'x'.repeat(43) } })
    expect(wrongToken.status).toBe(403)
    const crossSite = await t.request('POST', '/api/v1/auth/sign-out', { headers: { ...browser.headers(), origin: 'https://evil.example' } })
    expect(crossSite.status).toBe(403)
    const fetchMetadata = await t.request('POST', '/api/v1/auth/sign-out', { headers: { ...browser.headers(), 'sec-fetch-site': 'cross-site' } })
    expect(fetchMetadata.status).toBe(403)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(200)

    const out = await t.request('POST', '/api/v1/auth/sign-out', { headers: { ...browser.headers(), origin: 'http://localhost' } })
    expect(out.status).toBe(200)
    expect(out.headers.get('set-cookie')).toMatch(/^mailstead_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(401)
  })

  test.each([
    ['a forged token', 'mailstead_session=' + 'A'.repeat(43)],
    ['a malformed one', 'mailstead_session=abc'],
    ['none', 'other=1'],
  ])('%s: 401', async (_, cookie) => {
    const response = await t.request('GET', '/api/v1/auth/session', { headers: { cookie } })
    expect(response.status).toBe(401)
    expect(response.body.code).toBe('UNAUTHORIZED')
  })

  test('ends after two weeks without use; use moves the end on', async () => {
    const browser = await signIn(timed, 'jane@example.com')
    clock.advance(10 * 86_400_000)
    expect((await timed.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(200)
    clock.advance(10 * 86_400_000)
    expect((await timed.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(200)
    clock.advance(15 * 86_400_000)
    expect((await timed.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(401)
  })
})

describe('the cookie is Secure behind HTTPS', () => {
  const signInFrom = async (address: string, headers: Record<string, string>) => {
    const socket = await HttpSocket.open(Number(new URL(timed.app.url).port), address)
    try {
      return await socket.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD }, headers })
    } finally {
      socket.close()
    }
  }

  test('when a trusted proxy says the browser used HTTPS', async () => {
    const response = await signInFrom('127.0.0.1', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' })
    expect(response.status).toBe(200)
    expect(response.headers['set-cookie']).toEndWith('; Secure')
  })

  test('not when a client that is no proxy says so', async () => {
    const response = await signInFrom('127.0.0.2', { 'x-forwarded-proto': 'https' })
    expect(response.status).toBe(200)
    expect(response.headers['set-cookie']).not.toContain('Secure')
  })

  test('always when MAILSTEAD_PUBLIC_URL is https', async () => {
    const https = await createTestApp({ 'public-url': 'https://mail.example.com' })
    try {
      await makeAccount(https, 'jane@example.com')
      const response = await https.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD }, headers: { origin: 'https://mail.example.com' } })
      expect(response.status).toBe(200)
      expect(response.headers.get('set-cookie')).toEndWith('; Secure')
    } finally {
      await https.close()
    }
  })
})

describe('two processes on one database', () => {
  test('a session made through one is honoured by the other, and ended through it for both', async () => {
    const url = t.databaseFlags[1]
    const other = await createTestApp({ 'data-dir': t.dataDir, ...(url && { 'database-url': url }) })
    try {
      const browser = await signIn(t, 'jane@example.com')
      expect((await other.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).body.account.email).toBe('jane@example.com')
      expect((await other.request('POST', '/api/v1/auth/sign-out', { headers: browser.headers() })).status).toBe(200)
      expect((await t.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(401)
    } finally {
      await other.app.stop()
    }
  })
})

describe('mailstead user', () => {
  test('create without a password prints a one-time link; the link sets the password once', async () => {
    const created = await cli(['user', 'create', 'link@example.com', '--json', ...cliFlags])
    expect(created.code).toBe(0)
    const { passwordLink, passwordSet } = JSON.parse(created.out)
    expect(passwordSet).toBe(false)
    expect(passwordLink).toStartWith('https://mail.example.com/console/password?token=')
    const token = new URL(passwordLink).searchParams.get('token')!
    const refusedShort = await t.request('POST', '/api/v1/auth/password', { body: { token, password: 'short' } })
    expect(refusedShort.status).toBe(422)
    const set = await t.request('POST', '/api/v1/auth/password', { body: { token, password: PASSWORD } })
    expect(set.status).toBe(200)
    expect(set.body.account.passwordSet).toBe(true)
    const twice = await t.request('POST', '/api/v1/auth/password', { body: { token, password: 'another password entirely' } })
    expect(twice.status).toBe(422)
    expect(twice.body.errors[0].field).toBe('token')
    await signIn(t, 'link@example.com')
  })

  test('a password link expires after a day', async () => {
    const created = await cli(['user', 'create', 'late@example.com', '--json', ...flagsOf(timed)])
    const token = new URL(JSON.parse(created.out).passwordLink).searchParams.get('token')!
    clock.advance(25 * 3_600_000)
    const late = await timed.request('POST', '/api/v1/auth/password', { body: { token, password: PASSWORD } })
    expect(late.status).toBe(422)
  })

  test('create --password-stdin, list, reset-password and disable; a disabled account is signed out at once', async () => {
    expect((await cli(['user', 'create', 'ops@example.com', '--password-stdin', ...cliFlags], { stdin: `${PASSWORD}\n` })).code).toBe(0)
    expect((await cli(['user', 'create', 'ops@example.com', '--password-stdin', ...cliFlags], { stdin: `${PASSWORD}\n` })).code).toBe(1)
    const browser = await signIn(t, 'ops@example.com')

    const list = await cli(['user', 'list', '--json', ...cliFlags])
    expect(JSON.parse(list.out).map((a: { email: string }) => a.email)).toContain('ops@example.com')
    expect(list.out).not.toContain('argon2')

    const reset = await cli(['user', 'reset-password', 'ops@example.com', '--password-stdin', ...cliFlags], { stdin: 'a brand new password' })
    expect(reset.code).toBe(0)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status).toBe(401)
    const again = await signIn(t, 'ops@example.com', 'a brand new password')

    expect((await cli(['user', 'disable', 'ops@example.com', ...cliFlags])).code).toBe(2)
    expect((await cli(['user', 'disable', 'ops@example.com', '--yes', ...cliFlags])).code).toBe(0)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: again.headers() })).status).toBe(401)
    const refused = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'ops@example.com', password: 'a brand new password' } })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('ACCOUNT_DISABLED')
    expect((await cli(['user', 'enable', 'ops@example.com', ...cliFlags])).code).toBe(0)
    await signIn(t, 'ops@example.com', 'a brand new password')
  })

  test('a user command with a bad email or too short a password says so and changes nothing', async () => {
    const bad = await cli(['user', 'create', 'not-an-email', '--password-stdin', ...cliFlags], { stdin: PASSWORD })
    expect(bad.code).toBe(1)
    expect(bad.err).toContain('email')
    const short = await cli(['user', 'create', 'short@example.com', '--password-stdin', ...cliFlags], { stdin: 'short' })
    expect(short.code).toBe(1)
    expect(short.err).toContain('password')
    const list = await cli(['user', 'list', '--json', ...cliFlags])
    expect(list.out).not.toContain('short@example.com')
  })
})

describe('secrets', () => {
  test('no password, session token, token hash or CSRF token is ever logged', async () => {
    const response = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD } })
    const browser = browserOf(response)
    await t.request('GET', '/api/v1/auth/session', { headers: browser.headers() })
    const rows = await t.app.db.selectFrom('account_sessions').select('token_hash').execute()
    const text = logs.join('\n')
    expect(text).not.toContain(PASSWORD)
    expect(text).not.toContain(browser.cookie.split('=')[1]!)
    expect(text).not.toContain(browser.csrf)
    for (const row of rows) expect(text).not.toContain(row.token_hash)
    expect(text).not.toContain('argon2')
  })
})
