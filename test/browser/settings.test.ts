// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import * as OTPAuth from 'otpauth'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount, PASSWORD } from '../helpers/accounts.ts'
import { until } from '../helpers/until.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * The Settings and Account pages: renaming the project, a send rate above the server's refused
 * beside its field, an invitation shown once and accepted as a new account in another browser, that
 * member refused keys in the page and by the API, a used or expired link refused; roles changed,
 * members removed, the project deleted; another session revoked and two-step sign-in turned on and
 * asked for at the next sign-in.
 */

let w: ConsoleWorld
let shop: { id: number; secretKey: string }

const api = (path: string) => w.t.request('GET', path, { key: shop.secretKey })

/** The path and query of an invitation link, to open on the test server. */
const pathOf = (link: string) => {
  const url = new URL(link)
  return `${url.pathname}${url.search}`
}

async function invite(page: Page, email: string, role: string): Promise<string> {
  const invitations = page.getByRole('region', { name: 'Invitations' })
  await invitations.getByLabel('Email address').fill(email)
  await invitations.getByLabel('Role').selectOption(role)
  await invitations.getByRole('button', { name: 'Create invitation' }).click()
  const made = page.getByRole('region', { name: `Invitation for ${email}` })
  await made.waitFor()
  return String(await made.getByLabel('Invitation link', { exact: true }).textContent())
}

describeInBrowser('the Settings and Account pages in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld({ 'send-rate-per-second': '50' })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const second = await makeAccount(w.t, 'second@example.com')
    shop = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, shop.id, second.id, 'viewer', Date.now()))
  })
  afterAll(() => w?.close())

  test('Settings: rename, a send rate above the server’s refused beside the field, an invitation accepted by a new member who cannot create keys', async () => {
    const page = await w.signedInAt('desktop', '/console/settings')
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    await page.getByLabel('Project name').fill('Shop Online')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    // The switcher shows the new name.
    await page.getByRole('combobox', { name: 'Current project', exact: true }).getByRole('option', { name: 'Shop Online' }).waitFor({ state: 'attached' })
    expect((await api('/api/v1/project')).body.name).toBe('Shop Online')

    const rate = page.getByLabel('Send rate (emails per second)')
    await rate.fill('500')
    await page.getByRole('button', { name: 'Save settings' }).click()
    const refusal = page.getByText("must be at most the server's 50 emails per second")
    await refusal.waitFor()
    expect(await rate.getAttribute('aria-invalid')).toBe('true')
    // The message is the field's own: its description names it.
    const describedBy = String(await rate.getAttribute('aria-describedby'))
    expect(await refusal.getAttribute('id').then((id) => describedBy.split(' ').includes(String(id)))).toBe(true)
    await screenshot(page, 'settings-rate-refused')
    await rate.fill('20')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    expect((await api('/api/v1/project')).body.sendRatePerSecond).toBe(20)

    // An invitation: its link shown once, with a copy button, then listed without it.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    const link = await invite(page, 'newbie@example.com', 'member')
    expect(link).toContain('/console/invitation?token=')
    await page.getByRole('button', { name: 'Copy invitation link' }).click()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link)
    await screenshot(page, 'settings')
    await page.getByRole('button', { name: 'Done' }).click()
    await page.getByRole('region', { name: 'Invitation for newbie@example.com' }).waitFor({ state: 'detached' })
    const pending = page.getByRole('table', { name: 'Pending invitations' })
    await pending.getByRole('row').filter({ hasText: 'newbie@example.com' }).waitFor()
    expect(await page.content()).not.toContain(link.split('token=')[1]!)

    // Accepted in a fresh browser, making an account.
    const newbie = await w.open('desktop', pathOf(link))
    await newbie.getByRole('heading', { name: 'Join Shop Online' }).waitFor()
    await newbie.getByText('as member, at newbie@example.com').waitFor()
    await newbie.getByLabel('Choose a password').fill(PASSWORD)
    await newbie.getByRole('button', { name: 'Accept invitation' }).click()
    await newbie.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()

    // A member who cannot create keys: none offered, and the API refuses the request the page would make.
    await newbie.getByRole('link', { name: 'API keys' }).click()
    await newbie.getByRole('table', { name: 'Keys' }).waitFor()
    await newbie.getByText('Your role (member) can see the keys').waitFor()
    expect(await newbie.getByRole('button', { name: 'Create key' }).count()).toBe(0)
    const refused = await newbie.evaluate(async (projectId) => {
      const session = (await (await fetch('/api/v1/auth/session')).json()) as { csrfToken: string }
      const response = await fetch('/api/v1/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken, 'x-project-id': String(projectId) },
        body: JSON.stringify({ type: 'secret' }),
      })
      return { status: response.status, body: await response.json() }
    }, shop.id)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN', message: 'Your role in this project (member) cannot manage API keys' })
    expect((await api('/api/v1/keys')).body).toHaveLength(2)

    // The member reads the settings and the members, and is offered no change.
    await newbie.getByRole('link', { name: 'Settings' }).click()
    await newbie.getByText('Your role (member) can read the settings').waitFor()
    await newbie.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: 'newbie@example.com (you)' }).waitFor()
    expect(await newbie.getByRole('button', { name: 'Save settings' }).count()).toBe(0)
    expect(await newbie.getByRole('region', { name: 'Invitations' }).count()).toBe(0)
    expect(await newbie.getByRole('button', { name: /^Delete project/ }).count()).toBe(0)
    expect(await newbie.getByRole('combobox', { name: /^Role of/ }).count()).toBe(0)
    await screenshot(newbie, 'settings-member')
    await newbie.context().close()

    // The link again, used: refused, saying why.
    const again = await w.open('phone', pathOf(link))
    await again.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor()
    await again.getByText('This invitation is not valid: it has expired, was already used or revoked, or was not made by this server.').waitFor()
    await screenshot(again, 'invitation-used')
    await again.context().close()

    // One that expired: the same.
    const late = await invite(page, 'late@example.com', 'viewer')
    await page.getByRole('button', { name: 'Done' }).click()
    await w.t.app.db.updateTable('project_invitations').set({ expires_at: Date.now() - 1 }).where('email', '=', 'late@example.com').execute()
    const expired = await w.open('desktop', pathOf(late))
    await expired.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor()
    await expired.getByText(/has expired/).waitFor()
    await expired.context().close()
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000) // three browsers and four screenshots: more than a loaded machine does in 30 s

  test('Settings: an owner changes a role, removes a member, revokes an invitation and deletes a project by typing its name', async () => {
    const page = await w.signedInAt('desktop', '/console/settings')
    const members = page.getByRole('table', { name: 'Members' })
    await members.getByRole('row').filter({ hasText: 'newbie@example.com' }).waitFor()
    await page.getByLabel('Role of newbie@example.com').selectOption('viewer')
    const roleOf = async (email: string) => (await w.t.request('GET', '/api/v1/project/members', { key: shop.secretKey })).body.find((m: { email: string }) => m.email === email)?.role
    expect(await until(() => roleOf('newbie@example.com'), (role) => role === 'viewer')).toBe('viewer')
    // The last owner stays owner: the refusal shows beside the select.
    await page.getByLabel('Role of owner@example.com').selectOption('admin')
    await members.getByRole('alert').filter({ hasText: /owner/ }).waitFor()
    expect(await roleOf('owner@example.com')).toBe('owner')

    await page.getByRole('button', { name: 'Remove newbie@example.com' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Remove newbie@example.com?' })
    await dialog.getByRole('button', { name: 'Remove member' }).click()
    await dialog.waitFor({ state: 'detached' })
    await members.getByRole('row').filter({ hasText: 'newbie@example.com' }).waitFor({ state: 'detached' })

    await invite(page, 'gone@example.com', 'admin')
    await page.getByRole('button', { name: 'Done' }).click()
    await page.getByRole('button', { name: 'Revoke the invitation for gone@example.com' }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke invitation' }).click()
    await page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: 'gone@example.com' }).waitFor({ state: 'detached' })

    // A second project, deleted: the name must be typed first.
    const owner = (await w.t.app.db.selectFrom('accounts').select('id').where('email', '=', 'owner@example.com').executeTakeFirstOrThrow()).id
    const scratch = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner, 'Scratch', Date.now()))
    await page.reload()
    await page.getByRole('combobox', { name: 'Current project', exact: true }).selectOption({ label: 'Scratch' })
    await page.getByLabel('Project name').and(page.locator('[value="Scratch"]')).waitFor()
    await page.getByRole('button', { name: 'Delete project…' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Delete Scratch?' })
    const remove = confirm.getByRole('button', { name: 'Delete project' })
    expect(await remove.isDisabled()).toBe(true)
    await confirm.getByLabel('Type the project’s name to confirm').fill('Scratc')
    expect(await remove.isDisabled()).toBe(true)
    await confirm.getByLabel('Type the project’s name to confirm').fill('Scratch')
    await screenshot(page, 'settings-delete')
    await remove.click()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    expect(await page.getByRole('combobox', { name: 'Current project', exact: true }).getByRole('option').allTextContents()).toEqual(['Shop Online'])
    expect(await w.t.app.db.selectFrom('projects').select('id').where('id', '=', scratch.id).executeTakeFirst()).toBeUndefined()
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('Settings on a phone', async () => {
    const page = await w.signedInAt('phone', '/console/settings')
    await page.getByRole('table', { name: 'Members' }).waitFor()
    await page.getByRole('region', { name: 'Invitations' }).getByLabel('Email address').fill('phone@example.com')
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
    await screenshot(page, 'settings')
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('Account: another session revoked; two-step sign-in turned on, then asked for at sign-in', async () => {
    const other = await w.signedInAt('phone', '/console/', 'second@example.com')
    const page = await w.signedInAt('desktop', '/console/', 'second@example.com')
    await page.getByRole('link', { name: 'Your account' }).click()
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor()
    const sessions = page.getByRole('table', { name: 'Your sessions' })
    await sessions.getByRole('row').nth(2).waitFor()
    expect(await sessions.getByRole('row').count()).toBe(3)
    await sessions.getByRole('row').filter({ hasText: 'This browser' }).waitFor()
    await screenshot(page, 'account')
    await sessions.getByRole('button', { name: /^Revoke the session of/ }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke session' }).click()
    await page.getByRole('alertdialog').waitFor({ state: 'detached' })
    expect(await sessions.getByRole('row').count()).toBe(2)
    // The other browser is signed out at its next request.
    await other.reload()
    await other.getByRole('button', { name: 'Sign in' }).waitFor()
    await other.context().close()

    // An open session is not enough: the current password is asked for first.
    const twoStep = page.getByRole('region', { name: 'Two-step sign-in' })
    await twoStep.getByLabel('Current password').fill('not the password at all')
    await twoStep.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    await twoStep.getByText('is not the password of this account').waitFor()
    await twoStep.getByLabel('Current password').fill(PASSWORD)
    await twoStep.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    const secret = String(await page.getByLabel('Setup key', { exact: true }).textContent()).replace(/\s+/g, '')
    const uri = String(await page.getByLabel('otpauth link', { exact: true }).textContent())
    expect(uri).toStartWith('otpauth://totp/Mailstead:second%40example.com?')
    expect(uri).toContain(`secret=${secret}`)
    await page.getByRole('button', { name: 'Copy setup key' }).waitFor()
    await screenshot(page, 'account-totp-enroll')
    const totp = new OTPAuth.TOTP({ issuer: 'Mailstead', algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) })
    await page.getByLabel('Code from your app').fill('000000' === totp.generate() ? '111111' : '000000')
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click()
    await page.getByText('is not the current code of your authenticator').waitFor()
    await page.getByLabel('Code from your app').fill(totp.generate())
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click()
    // Its recovery codes are shown once first (account.test.ts uses them).
    await page.getByRole('button', { name: 'I have stored them' }).click()
    await page.getByRole('button', { name: 'Turn off two-step sign-in' }).waitFor()
    await page.getByText('Signing in asks for a code').waitFor()
    await screenshot(page, 'account-totp-on')

    // Signed out and in again: the code is asked for after the password.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await w.signIn(page, 'second@example.com')
    const code = page.getByLabel('Authenticator code')
    await code.waitFor()
    expect(await page.locator('nav[aria-label="Console"]').count()).toBe(0)
    // The code of the next step: the one just used to turn it on cannot be used again.
    await code.fill(totp.generate({ timestamp: Date.now() + 30_000 }))
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })

    // The password is changed with the current one; a wrong one is refused beside its field.
    await page.goto(`${w.url}/console/account`)
    const password = page.getByRole('region', { name: 'Password' })
    await password.getByLabel('Current password').fill('not the password at all')
    await password.getByLabel('New password').fill('another good password')
    await password.getByRole('button', { name: 'Change password' }).click()
    await password.getByText('is not the password of this account').waitFor()
    await password.getByLabel('Current password').fill(PASSWORD)
    await password.getByRole('button', { name: 'Change password' }).click()
    await password.getByRole('status').getByText('Password changed').waitFor()
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('Account on a phone', async () => {
    const page = await w.signedInAt('phone', '/console/account')
    await page.getByRole('table', { name: 'Your sessions' }).waitFor()
    const twoStep = page.getByRole('region', { name: 'Two-step sign-in' })
    await twoStep.getByLabel('Current password').fill(PASSWORD)
    await twoStep.getByRole('button', { name: 'Set up two-step sign-in' }).click()
    await page.getByLabel('Setup key', { exact: true }).waitFor()
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
    await screenshot(page, 'account')
    await page.context().close()
    expect(w.problems).toEqual([])
  })
})
