// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as OTPAuth from 'otpauth'
import { browserOf, makeAccount, PASSWORD, signIn } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

/* A person's sessions (listed, revoked) and their TOTP second factor, through HTTP. */

const clock = new ManualClock(Date.now())
let t: TestApp

beforeAll(async () => {
  t = await createTestApp({}, { clock })
  await makeAccount(t, 'jane@example.com')
  await makeAccount(t, 'joe@example.com')
})

afterAll(() => t.close())

const signInAs = (email: string, userAgent: string) =>
  t.request('POST', '/api/v1/auth/sign-in', { body: { email, password: PASSWORD }, headers: { 'user-agent': userAgent } }).then(browserOf)

describe('my sessions', () => {
  test('are listed without their tokens, the current one marked; one revoked is signed out at once', async () => {
    const laptop = await signInAs('jane@example.com', 'Laptop')
    const phone = await signInAs('jane@example.com', 'Phone')
    const listed = await t.request('GET', '/api/v1/account/sessions', { headers: laptop.headers() })
    expect(listed.status).toBe(200)
    expect(listed.body.map((s: { userAgent: string; current: boolean }) => [s.userAgent, s.current]).sort()).toEqual([
      ['Laptop', true],
      ['Phone', false],
    ])
    const text = JSON.stringify(listed.body)
    for (const browser of [laptop, phone]) expect(text).not.toContain(browser.cookie.split('=')[1]!)
    expect(text).not.toContain('token')

    const phoneId = listed.body.find((s: { userAgent: string }) => s.userAgent === 'Phone').id
    expect((await t.request('DELETE', `/api/v1/account/sessions/${phoneId}`, { headers: laptop.headers({ csrf: false }) })).status).toBe(403)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: phone.headers() })).status).toBe(200)
    expect((await t.request('DELETE', `/api/v1/account/sessions/${phoneId}`, { headers: laptop.headers() })).status).toBe(200)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: phone.headers() })).status).toBe(401)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: laptop.headers() })).status).toBe(200)
  })

  test("another account's session is not found, and stays", async () => {
    const jane = await signIn(t, 'jane@example.com')
    const joe = await signIn(t, 'joe@example.com')
    const [joes] = (await t.request('GET', '/api/v1/account/sessions', { headers: joe.headers() })).body
    const response = await t.request('DELETE', `/api/v1/account/sessions/${joes.id}`, { headers: jane.headers() })
    expect(response.status).toBe(404)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: joe.headers() })).status).toBe(200)
  })
})

describe('a TOTP second factor', () => {
  let totp: OTPAuth.TOTP
  const code = () => totp.generate({ timestamp: clock.now() })
  const nextStep = () => clock.advance(30_000)

  test('enrolled, it is not asked for until a code confirms it; a wrong code confirms nothing', async () => {
    const jane = await signIn(t, 'jane@example.com')
    const enrolled = await t.request('POST', '/api/v1/account/totp', { headers: jane.headers(), body: { currentPassword: PASSWORD } })
    expect(enrolled.status).toBe(200)
    expect(enrolled.body.uri).toStartWith('otpauth://totp/Mailstead:jane%40example.com?')
    totp = OTPAuth.URI.parse(enrolled.body.uri) as OTPAuth.TOTP
    expect(totp.secret.base32).toBe(enrolled.body.secret)
    await signIn(t, 'jane@example.com')

    const wrong = await t.request('POST', '/api/v1/account/totp/confirm', { headers: jane.headers(), body: { code: code() === '000000' ? '111111' : '000000' } })
    expect(wrong.status).toBe(422)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: jane.headers() })).body.account.totpEnabled).toBe(false)

    const confirmed = await t.request('POST', '/api/v1/account/totp/confirm', { headers: jane.headers(), body: { code: code() } })
    expect(confirmed.body.totpEnabled).toBe(true)
    expect(confirmed.body.recoveryCodes).toHaveLength(10)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: jane.headers() })).body.account.totpEnabled).toBe(true)
    expect((await t.request('POST', '/api/v1/account/totp', { headers: jane.headers(), body: { currentPassword: PASSWORD } })).status).toBe(409)
  })

  test('then sign-in needs a code: none, a wrong one, or one used already is refused with no session', async () => {
    nextStep()
    const none = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD } })
    expect(none.status).toBe(401)
    expect(none.body.code).toBe('TOTP_REQUIRED')
    expect(none.headers.get('set-cookie')).toBeNull()
    const wrong = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD, code: '12345x' } })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('set-cookie')).toBeNull()
    // A right code with a wrong password is refused as a wrong password.
    expect((await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: 'not the password', code: code() } })).status).toBe(401)

    const current = code()
    const right = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD, code: current } })
    expect(right.status).toBe(200)
    const replayed = await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'jane@example.com', password: PASSWORD, code: current } })
    expect(replayed.status).toBe(401)
    expect(replayed.body.message).toBe('Wrong code')
  })

  test('is disabled only with a current code and the current password; then sign-in needs none', async () => {
    nextStep()
    const jane = await signIn(t, 'jane@example.com', PASSWORD, { code: code() })
    nextStep()
    const wrong = await t.request('POST', '/api/v1/account/totp/disable', { headers: jane.headers(), body: { code: '000000' === code() ? '111111' : '000000', currentPassword: PASSWORD } })
    expect(wrong.status).toBe(422)
    expect(wrong.body.errors[0].field).toBe('code')
    const noPassword = await t.request('POST', '/api/v1/account/totp/disable', { headers: jane.headers(), body: { code: code() } })
    expect(noPassword.status).toBe(422)
    const wrongPassword = await t.request('POST', '/api/v1/account/totp/disable', { headers: jane.headers(), body: { code: code(), currentPassword: 'not the password at all' } })
    expect(wrongPassword.body.errors[0].field).toBe('currentPassword')
    const noCsrf = await t.request('POST', '/api/v1/account/totp/disable', { headers: jane.headers({ csrf: false }), body: { code: code(), currentPassword: PASSWORD } })
    expect(noCsrf.status).toBe(403)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: jane.headers() })).body.account.totpEnabled).toBe(true)
    // Three wrong guesses so far: the next attempt waits before it is checked, the right one too.
    const began = Date.now()
    expect((await t.request('POST', '/api/v1/account/totp/disable', { headers: jane.headers(), body: { code: code(), currentPassword: PASSWORD } })).body).toEqual({ totpEnabled: false })
    expect(Date.now() - began).toBeGreaterThanOrEqual(450)
    await signIn(t, 'jane@example.com')
  })

  test('its secret is stored sealed, never as the base32 shown', async () => {
    const jane = await signIn(t, 'jane@example.com')
    const enrolled = await t.request('POST', '/api/v1/account/totp', { headers: jane.headers(), body: { currentPassword: PASSWORD } })
    const [row] = await t.app.db.selectFrom('account_totp').select('secret').execute()
    expect(row!.secret).toStartWith('v1.')
    expect(row!.secret).not.toContain(enrolled.body.secret)
  })
})

describe('changes to how an account signs in need its current password', () => {
  test('enrolling a second factor: without it, or with a wrong one, refused and nothing enrolled', async () => {
    const joe = await signIn(t, 'joe@example.com')
    const none = await t.request('POST', '/api/v1/account/totp', { headers: joe.headers(), body: {} })
    expect(none.status).toBe(422)
    const wrong = await t.request('POST', '/api/v1/account/totp', { headers: joe.headers(), body: { currentPassword: 'a stolen cookie is not enough' } })
    expect(wrong.status).toBe(422)
    expect(wrong.body.errors[0].field).toBe('currentPassword')
    expect(await t.app.db.selectFrom('account_totp').selectAll().execute()).toHaveLength(1) // jane's, from above
  })

  test('60 wrong codes at once to turn it off: counted with the sign-in throttle, so at most 3 + 8 are checked and the rest get 429', async () => {
    await makeAccount(t, 'guessed@example.com')
    const victim = await signIn(t, 'guessed@example.com')
    const enrolled = await t.request('POST', '/api/v1/account/totp', { headers: victim.headers(), body: { currentPassword: PASSWORD } })
    const totp = OTPAuth.URI.parse(enrolled.body.uri) as OTPAuth.TOTP
    expect((await t.request('POST', '/api/v1/account/totp/confirm', { headers: victim.headers(), body: { code: totp.generate({ timestamp: clock.now() }) } })).status).toBe(200)
    const right = totp.generate({ timestamp: clock.now() })
    const guesses = Array.from({ length: 60 }, (_, i) => String(i * 7919).padStart(6, '0')).filter((guess) => guess !== right)
    const answers = await Promise.all(guesses.map((code) => t.request('POST', '/api/v1/account/totp/disable', { headers: victim.headers(), body: { code, currentPassword: PASSWORD } })))
    expect(answers.filter((a) => a.status === 422).length).toBeLessThanOrEqual(11)
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(guesses.length - 11)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: victim.headers() })).body.account.totpEnabled).toBe(true)
  }, 30_000)

  test('changing the password: refused with a wrong current one; with the right one, the other sessions end and this one stays', async () => {
    await makeAccount(t, 'mover@example.com')
    const here = await signIn(t, 'mover@example.com')
    const elsewhere = await signIn(t, 'mover@example.com')
    const wrong = await t.request('POST', '/api/v1/account/password', { headers: here.headers(), body: { currentPassword: 'not my password', password: 'a brand new password' } })
    expect(wrong.status).toBe(422)
    expect(wrong.body.errors[0].field).toBe('currentPassword')
    const changed = await t.request('POST', '/api/v1/account/password', { headers: here.headers(), body: { currentPassword: PASSWORD, password: 'a brand new password' } })
    expect(changed.status).toBe(200)
    expect(changed.body.account.email).toBe('mover@example.com')
    expect((await t.request('GET', '/api/v1/auth/session', { headers: here.headers() })).status).toBe(200)
    expect((await t.request('GET', '/api/v1/auth/session', { headers: elsewhere.headers() })).status).toBe(401)
    expect((await t.request('POST', '/api/v1/auth/sign-in', { body: { email: 'mover@example.com', password: PASSWORD } })).status).toBe(401)
    await signIn(t, 'mover@example.com', 'a brand new password')
  }, 30_000)
})

describe('bounds on sessions', () => {
  const bounded = new ManualClock(Date.now())
  let b: TestApp
  beforeAll(async () => {
    b = await createTestApp({ 'session-max-per-account': '3', 'session-max-age-days': '2' }, { clock: bounded })
    await makeAccount(b, 'many@example.com')
  })
  afterAll(() => b.close())
  const sessionOf = async (browser: { headers(): Record<string, string> }) => (await b.request('GET', '/api/v1/auth/session', { headers: browser.headers() })).status

  test('past the most one account may hold, a new sign-in ends the oldest; the others stay', async () => {
    const browsers = []
    for (let i = 0; i < 4; i++) {
      browsers.push(await signIn(b, 'many@example.com'))
      bounded.advance(1000)
    }
    expect(await Promise.all(browsers.map(sessionOf))).toEqual([401, 200, 200, 200])
    const listed = await b.request('GET', '/api/v1/account/sessions', { headers: browsers[3]!.headers() })
    expect(listed.body).toHaveLength(3)
  }, 30_000)

  test('a session used every few hours still ends at its greatest age, and its cookie never outlives it', async () => {
    const browser = await signIn(b, 'many@example.com')
    const began = bounded.now()
    for (let hours = 6; hours < 48; hours += 6) {
      bounded.advance(6 * 3_600_000)
      const answer = await b.request('GET', '/api/v1/auth/session', { headers: browser.headers() })
      expect(answer.status).toBe(200)
      expect(Date.parse(answer.body.expiresAt)).toBeLessThanOrEqual(began + 2 * 86_400_000)
      const maxAge = Number(/Max-Age=(\d+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1] ?? 0)
      expect(bounded.now() + maxAge * 1000).toBeLessThanOrEqual(began + 2 * 86_400_000 + 1000)
    }
    bounded.advance(6 * 3_600_000)
    expect(await sessionOf(browser)).toBe(401)
  }, 30_000)

  test('the settings are refused out of range, naming what they accept', async () => {
    const { cli } = await import('../helpers/cli.ts')
    for (const [flag, value] of [['--session-max-per-account', '0'], ['--session-max-age-days', 'forever']]) {
      const result = await cli(['config', 'show', '--data-dir', '/tmp/mailstead-sessions-unused', flag!, value!])
      expect(result.code).not.toBe(0)
      expect(result.err).toContain('an integer from 1 to')
    }
  }, 30_000)
})
