// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as OTPAuth from 'otpauth'
import { makeAccount, PASSWORD, signIn, type Browser } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

/* A TOTP second factor's QR code and recovery codes, through HTTP. */

const clock = new ManualClock(Date.now())
let t: TestApp
let jane: Browser
let totp: OTPAuth.TOTP
let codes: string[]

beforeAll(async () => {
  t = await createTestApp({}, { clock })
  await makeAccount(t, 'jane@example.com')
  await makeAccount(t, 'joe@example.com')
  jane = await signIn(t, 'jane@example.com')
})

afterAll(() => t.close())

const signInWith = (code: string, email = 'jane@example.com') => t.request('POST', '/api/v1/auth/sign-in', { body: { email, password: PASSWORD, code } })
const left = async () => (await t.request('GET', '/api/v1/account/totp', { headers: jane.headers() })).body.recoveryCodesLeft

describe('enrolling a second factor', () => {
  test('answers a QR code of the otpauth URI as an SVG document', async () => {
    const enrolled = await t.request('POST', '/api/v1/account/totp', { headers: jane.headers(), body: { currentPassword: PASSWORD } })
    expect(enrolled.status).toBe(200)
    expect(enrolled.body.qrSvg).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"')
    expect(enrolled.body.qrSvg).toContain('<path')
    totp = OTPAuth.URI.parse(enrolled.body.uri) as OTPAuth.TOTP
    expect((await t.request('GET', '/api/v1/account/totp', { headers: jane.headers() })).body).toEqual({ totpEnabled: false, recoveryCodesLeft: 0 })
  })

  test('confirmed with a code computed from the secret, answers ten distinct recovery codes, this once', async () => {
    const confirmed = await t.request('POST', '/api/v1/account/totp/confirm', { headers: jane.headers(), body: { code: totp.generate({ timestamp: clock.now() }) } })
    expect(confirmed.status).toBe(200)
    codes = confirmed.body.recoveryCodes
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)
    expect(await left()).toBe(10)
    const stored = JSON.stringify(await t.app.db.selectFrom('account_recovery_codes').selectAll().execute())
    for (const code of codes) expect(stored).not.toContain(code.replace('-', ''))
  })
})

describe('a recovery code', () => {
  test('signs in in place of a TOTP code, once: the same code is refused the second time', async () => {
    const first = await signInWith(codes[0]!)
    expect(first.status).toBe(200)
    expect(first.headers.get('set-cookie')).toContain('=')
    expect(await left()).toBe(9)
    const again = await signInWith(codes[0]!)
    expect(again.status).toBe(401)
    expect(again.body.message).toBe('Wrong code')
    expect(again.headers.get('set-cookie')).toBeNull()
    expect(await left()).toBe(9)
  })

  test('is read without its dash and in any case', async () => {
    expect((await signInWith(codes[1]!.replace('-', '').toUpperCase())).status).toBe(200)
    expect(await left()).toBe(8)
  })
})

describe('regenerating recovery codes', () => {
  test('needs the current password', async () => {
    const wrong = await t.request('POST', '/api/v1/account/totp/recovery-codes', { headers: jane.headers(), body: { currentPassword: 'not the password at all' } })
    expect(wrong.status).toBe(422)
    expect(wrong.body.errors[0].field).toBe('currentPassword')
    expect(await left()).toBe(8)
  })

  test('replaces them all: the old unused ones stop working, the new ones sign in', async () => {
    const made = await t.request('POST', '/api/v1/account/totp/recovery-codes', { headers: jane.headers(), body: { currentPassword: PASSWORD } })
    expect(made.status).toBe(200)
    expect(made.body.recoveryCodes).toHaveLength(10)
    expect(made.body.recoveryCodes).not.toContain(codes[3])
    expect(await left()).toBe(10)
    expect((await signInWith(codes[3]!)).status).toBe(401)
    expect((await signInWith(made.body.recoveryCodes[0])).status).toBe(200)
    expect(await left()).toBe(9)
  })

  test('turning the second factor off deletes them', async () => {
    clock.advance(30_000)
    const off = await t.request('POST', '/api/v1/account/totp/disable', { headers: jane.headers(), body: { code: totp.generate({ timestamp: clock.now() }), currentPassword: PASSWORD } })
    expect(off.body).toEqual({ totpEnabled: false })
    expect(await left()).toBe(0)
    expect(await t.app.db.selectFrom('account_recovery_codes').selectAll().execute()).toEqual([])
    const none = await t.request('POST', '/api/v1/account/totp/recovery-codes', { headers: jane.headers(), body: { currentPassword: PASSWORD } })
    expect(none.status).toBe(409)
  })
})

describe('guesses at recovery codes', () => {
  // Another account, so that the failures counted here slow none of the tests above.
  test('count as failed sign-ins: after three wrong ones, even a right one waits', async () => {
    const joe = await signIn(t, 'joe@example.com')
    const enrolled = await t.request('POST', '/api/v1/account/totp', { headers: joe.headers(), body: { currentPassword: PASSWORD } })
    const his = OTPAuth.URI.parse(enrolled.body.uri) as OTPAuth.TOTP
    const confirmed = await t.request('POST', '/api/v1/account/totp/confirm', { headers: joe.headers(), body: { code: his.generate({ timestamp: clock.now() }) } })
    for (const guess of ['aaaaa-aaaaa', 'bbbbb-bbbbb', 'ccccc-ccccc']) expect((await signInWith(guess, 'joe@example.com')).status).toBe(401)
    const began = Date.now()
    expect((await signInWith(confirmed.body.recoveryCodes[0], 'joe@example.com')).status).toBe(200)
    expect(Date.now() - began).toBeGreaterThanOrEqual(450)
  })
})
