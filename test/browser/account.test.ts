// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import * as OTPAuth from 'otpauth'
import type { Page } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount, PASSWORD } from '../helpers/accounts.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

/*
 * Two-step sign-in on the Account page: the enrolment's QR code (an image the page's policy lets
 * load), the secret read off the page and its codes made as an authenticator app makes them
 * (otpauth, the library and settings of src/core/accounts/totp.service.ts), the ten recovery codes
 * shown once with copy and download; then a recovery code signs in once and is refused the second
 * time, and new codes replace the old with the current password. The enrolment step at both
 * widths in both themes, checked by axe-core.
 */

let w: ConsoleWorld

/** The codes an authenticator app shows for this secret, as the server checks them. */
const authenticator = (secret: string) => new OTPAuth.TOTP({ issuer: 'Mailstead', algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) })

/** Whether the QR code's image has loaded (a refused one has no natural width). */
const QR_LOADED = "(() => { const img = document.querySelector('img.totp-qr'); return img !== null && img.complete && img.naturalWidth > 0 })()"

/** Starts the enrolment with the password and returns the setup key shown. */
async function startEnrolment(page: Page): Promise<string> {
  const twoStep = page.getByRole('region', { name: 'Two-step sign-in' })
  await twoStep.getByLabel('Current password').fill(PASSWORD)
  await twoStep.getByRole('button', { name: 'Set up two-step sign-in' }).click()
  return String(await page.getByLabel('Setup key', { exact: true }).textContent()).replace(/\s+/g, '')
}

/** Signs out through the side bar (on a phone, through its drawer). */
async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
}

describeInBrowser('two-step sign-in on the Account page in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    for (const email of ['ada@example.com', 'looks@example.com']) {
      const account = await makeAccount(w.t, email)
      await w.t.app.writer.run((trx) => createOwnedProject(trx, account.id, 'Shop', Date.now()))
    }
  })
  afterAll(() => w?.close())

  test('enrolled from the QR code’s secret; ten recovery codes shown once, each signs in once; new codes replace them', async () => {
    const page = await w.signedInAt('desktop', '/console/account', 'ada@example.com')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor()
    const secret = await startEnrolment(page)

    // The QR code is an image with a name, and it loaded: the page's policy allows data: images.
    const qr = page.getByRole('img', { name: /^QR code to scan with your authenticator app/ })
    await qr.waitFor()
    await page.waitForFunction(QR_LOADED)
    expect(String(await qr.getAttribute('src'))).toStartWith('data:image/svg+xml')

    const totp = authenticator(secret)
    await page.getByLabel('Code from your app').fill(totp.generate())
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click()

    // The recovery codes, this once.
    const shown = page.getByRole('region', { name: 'Your recovery codes' })
    await shown.getByText('Each code works once; store them now.').waitFor()
    const codes = (await shown.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents()).map((code) => code.trim())
    expect(codes).toHaveLength(10)
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)
    await shown.getByRole('button', { name: 'Copy recovery codes' }).click()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(codes.join('\n'))
    const [download] = await Promise.all([page.waitForEvent('download'), shown.getByRole('button', { name: 'Download as .txt' }).click()])
    expect(download.suggestedFilename()).toBe('mailstead-recovery-codes.txt')
    const file = readFileSync(String(await download.path()), 'utf8')
    for (const code of codes) expect(file).toContain(`\n${code}\n`)
    await screenshot(page, 'account-recovery-codes')
    await shown.getByRole('button', { name: 'I have stored them' }).click()
    await shown.waitFor({ state: 'detached' })
    expect(await page.content()).not.toContain(codes[0]!)
    await page.getByText('10 of 10 left').waitFor()

    // Signed out, then in with the password and a recovery code.
    await signOut(page)
    await w.signIn(page, 'ada@example.com')
    await page.getByLabel('Authenticator code').fill(codes[0]!.toUpperCase())
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
    await page.goto('/console/account')
    await page.getByText('9 of 10 left').waitFor()

    // The same code a second time: refused.
    await signOut(page)
    await w.signIn(page, 'ada@example.com')
    await page.getByLabel('Authenticator code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('Wrong code').waitFor()
    expect(await page.locator('nav[aria-label="Console"]').count()).toBe(0)

    // Another one works; then new codes, with the current password, replace them all.
    await page.getByLabel('Authenticator code').fill(codes[1]!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
    await page.goto('/console/account')
    await page.getByText('8 of 10 left').waitFor()
    await page.getByRole('button', { name: 'New recovery codes…' }).click()
    const dialog = page.getByRole('dialog', { name: 'New recovery codes' })
    await dialog.getByLabel('Current password').fill('not the password at all')
    await dialog.getByRole('button', { name: 'Make new codes' }).click()
    await dialog.getByText('is not the password of this account').waitFor()
    await dialog.getByLabel('Current password').fill(PASSWORD)
    await dialog.getByRole('button', { name: 'Make new codes' }).click()
    await dialog.waitFor({ state: 'detached' })
    const fresh = (await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents()).map((code) => code.trim())
    expect(fresh).toHaveLength(10)
    expect(fresh).not.toContain(codes[2])
    await page.getByRole('button', { name: 'I have stored them' }).click()
    await page.getByText('10 of 10 left').waitFor()

    // An old, unused code stopped working.
    await signOut(page)
    await w.signIn(page, 'ada@example.com')
    await page.getByLabel('Authenticator code').fill(codes[2]!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('Wrong code').waitFor()
    await page.getByLabel('Authenticator code').fill(fresh[0]!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  for (const scheme of ['light', 'dark'] as const) {
    for (const width of ['desktop', 'phone'] as const satisfies Width[]) {
      test(`the enrolment step in the ${scheme} scheme at ${width} width: no axe violation, a screenshot`, async () => {
        const page = await w.signedInAt(width, '/console/account', 'looks@example.com', { colorScheme: scheme })
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
        await startEnrolment(page)
        await page.waitForFunction(QR_LOADED)
        await screenshot(page, 'account-totp-enroll')
        expect(await axeViolations(page)).toEqual([])
        if (width === 'phone') expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
        await page.context().close()
        expect(w.problems).toEqual([])
      }, 60_000)
    }
  }
})
