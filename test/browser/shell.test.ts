// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { addMember } from '../../src/core/accounts/members.service.ts'
import { setupToken } from '../../src/core/accounts/setup.ts'
import { makeAccount, PASSWORD } from '../helpers/accounts.ts'
import { describeInBrowser, screenshot, SECRET, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

let w: ConsoleWorld
const OWNER = 'owner@example.com'
const OWNER_PASSWORD = 'a long enough password'
const PAGES = ['Overview', 'Emails', 'Domains', 'Suppressions', 'Reports', 'Queue', 'Webhooks', 'API keys', 'SMTP relay', 'Settings']

/** A page at `width`, signed in as the owner, at `path`. */
async function signedIn(width: Width, path = '/console/'): Promise<Page> {
  const page = await w.open(width, path)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await w.signIn(page, OWNER, OWNER_PASSWORD)
  // The navigation is there, hidden behind the Menu button on a phone.
  await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
  return page
}

describeInBrowser('the console shell in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
  })
  afterAll(() => w?.close())

  test('first run: the setup page makes the first account, which makes its first project and sees its keys once', async () => {
    const page = await w.open('desktop', '/')
    await page.getByRole('heading', { name: 'Set up Mailstead' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/console/setup')
    await screenshot(page, 'setup')
    // A wrong token: the API's message beside the token field.
    await page.getByLabel('Setup token').fill('not-a-token')
    await page.getByLabel('Email').fill(OWNER)
    await page.getByLabel('Password').fill(OWNER_PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('this setup link is not valid').waitFor()
    const tokenField = page.getByLabel('Setup token')
    await expect(tokenField.getAttribute('aria-invalid')).resolves.toBe('true')
    await screenshot(page, 'setup-error')
    await tokenField.fill(setupToken(SECRET, Date.now()))
    await page.getByRole('button', { name: 'Create account' }).click()

    await page.getByRole('heading', { name: 'Create your first project' }).waitFor()
    await screenshot(page, 'first-project')
    await page.getByLabel('Project name').fill('Shop')
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('heading', { name: 'Shop is ready' }).waitFor()
    expect(await page.getByLabel('Secret key', { exact: true }).textContent()).toStartWith('sk_')
    await expect(page.getByRole('button', { name: 'Copy secret key' }).isVisible()).resolves.toBe(true)
    await screenshot(page, 'first-project-keys')
    await page.getByRole('button', { name: 'Continue to the console' }).click()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await expect(page.getByLabel('Current project', { exact: true }).inputValue()).resolves.toBeTruthy()
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('the setup link opens the page with its token; once an account exists, setup says it is done', async () => {
    const page = await w.open('phone', `/console/setup?token=${encodeURIComponent(setupToken(SECRET, Date.now()))}`)
    await page.getByRole('heading', { name: 'Setup is done' }).waitFor()
    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await page.context().close()
  })

  test('signing in: a wrong password gets the API message; the right one goes to the page asked for', async () => {
    const page = await w.open('desktop', '/console/domains')
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(new URL(page.url()).search).toBe(`?next=${encodeURIComponent('/domains')}`)
    await screenshot(page, 'sign-in')
    await w.signIn(page, OWNER, 'not the password at all')
    await page.getByRole('alert').filter({ hasText: /wrong|invalid|incorrect/i }).waitFor()
    await screenshot(page, 'sign-in-error')
    await page.getByLabel('Password').fill(OWNER_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/console/domains')
    await page.context().close()
    w.problems.length = 0
  })

  test('every page is in the navigation, marked current, and a reload at its address shows it again', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await signedIn(width)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      for (const name of PAGES) {
        if (width === 'phone') await page.getByRole('button', { name: 'Menu' }).click()
        const link = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true })
        await link.click()
        await page.getByRole('heading', { name, level: 1 }).waitFor()
        // The current page is marked (on a phone the menu has closed again: looked up as markup).
        await expect(page.locator('nav[aria-label="Console"] a[aria-current="page"]').textContent()).resolves.toBe(name)
        expect(await page.title()).toBe(`${name} · Mailstead`)
        await screenshot(page, `page-${name.toLowerCase().replace(/\s+/g, '-')}`)
      }
      await page.reload()
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
      await page.goto('/console/no/such/page')
      await page.getByRole('heading', { name: 'Page not found' }).waitFor()
      await page.context().close()
    }
    expect(w.problems).toEqual([])
    // Every page twice, each a load of its code and its first answers: tens of seconds on a busy machine.
  }, 120_000)

  test('the keyboard alone signs in and moves through the navigation', async () => {
    const page = await w.open('desktop', '/console/')
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    // The email field has focus on arrival.
    await page.keyboard.type(OWNER)
    await page.keyboard.press('Tab')
    await page.keyboard.type(OWNER_PASSWORD)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content')
    // Past the brand and the project switcher, the first links of the navigation.
    const names: string[] = []
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab')
      names.push(String(await page.evaluate('document.activeElement.textContent || document.activeElement.getAttribute("aria-label") || document.activeElement.id')))
    }
    expect(names).toContain('Emails')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1 }).filter({ hasNotText: 'Overview' }).waitFor()
    // Focus moved to the page's content.
    expect(await page.evaluate('document.activeElement.id')).toBe('main')
    await page.context().close()
  })

  test('switching projects: the switcher lists the account projects and remembers the choice', async () => {
    const second = await w.t.project('Blog')
    const owner = await w.t.app.db.selectFrom('accounts').select('id').where('email', '=', OWNER).executeTakeFirstOrThrow()
    await w.t.app.writer.run((trx) => addMember(trx, second.id, owner.id, 'viewer', Date.now()))
    const page = await signedIn('desktop', '/console/settings')
    await page.getByLabel('Current project', { exact: true }).selectOption({ label: 'Blog' })
    await page.locator('input[name="name"][value="Blog"]').waitFor()
    // The first account is the instance owner: it owns every project, whatever its membership says.
    await page.getByText('Your role: owner').waitFor()
    await page.reload()
    await expect(page.getByLabel('Current project', { exact: true }).locator('option:checked').textContent()).resolves.toBe('Blog')
    await page.context().close()
  })

  test('signing out ends the session: the console asks to sign in again', async () => {
    const page = await signedIn('phone')
    await page.getByRole('button', { name: 'Menu' }).click()
    await screenshot(page, 'menu-open')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await page.goto('/console/emails')
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await page.context().close()
    expect(w.problems.filter((p) => !p.includes('401'))).toEqual([])
  })

  test('an account made by the CLI signs in and is asked to make its first project', async () => {
    await makeAccount(w.t, 'second@example.com')
    const page = await w.open('phone', '/console/')
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await w.signIn(page, 'second@example.com', PASSWORD)
    await page.getByRole('heading', { name: 'Create your first project' }).waitFor()
    // Too long: the API's message under the field, which gets the focus.
    await page.getByLabel('Project name').fill('x'.repeat(101))
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByText(/must be .*100/).waitFor()
    await expect(page.getByLabel('Project name').getAttribute('aria-invalid')).resolves.toBe('true')
    expect(await page.evaluate('document.activeElement.getAttribute("name")')).toBe('name')
    await screenshot(page, 'first-project-error')
    await page.getByLabel('Project name').fill('Second shop')
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('heading', { name: 'Second shop is ready' }).waitFor()
    await page.context().close()
  })
})
