// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { suppress } from '../../src/core/suppressions/suppressions.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

let w: ConsoleWorld
let project: { id: number; secretKey: string }

const api = (path: string, key: string) => fetch(`${w.url}${path}`, { headers: { authorization: `Bearer ${key}` } })

describeInBrowser('the API keys, SMTP relay and Suppressions pages in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld({ hostname: 'mail.example.test', 'relay-port': '0', 'relay-tls-port': 'off' })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    const made = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, made.id, viewer.id, 'viewer', Date.now()))
    project = made
  })
  afterAll(() => w?.close())

  test('API keys: listed by their first characters only, a new one shown once with a copy button, then revoked', async () => {
    const page = await w.signedInAt('desktop', '/console/api-keys')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    const table = page.getByRole('table', { name: 'Keys' })
    await table.waitFor()
    expect(await table.getByRole('row').count()).toBe(3)
    // The project's first secret key is listed, never whole.
    expect(await page.content()).not.toContain(project.secretKey)
    expect(await table.textContent()).toContain(`${project.secretKey.slice(0, 11)}…`)
    expect(await table.locator('time').first().getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
    await screenshot(page, 'api-keys')

    // A key needs a name: the API's sentence shows beside the field, and nothing is made.
    await page.getByRole('radio', { name: /Secret key/ }).check()
    await page.getByRole('button', { name: 'Create key' }).click()
    await expect(page.getByRole('textbox', { name: 'Name' }).getAttribute('aria-invalid')).resolves.toBe('true')
    await page.getByRole('textbox', { name: 'Name' }).fill('Web server')
    await page.getByRole('radio', { name: /Sending only/ }).check({ force: true })
    await page.getByRole('radio', { name: 'In 90 days' }).check({ force: true })
    await expect(page.getByRole('radio', { name: /Sending only/ }).isChecked()).resolves.toBe(true)
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByRole('heading', { name: 'New secret key' }).waitFor()
    const whole = String(await page.getByLabel('Secret key', { exact: true }).textContent())
    expect(whole).toMatch(/^sk_/)
    await page.getByRole('button', { name: 'Copy secret key' }).click()
    await page.getByRole('status').filter({ hasText: 'secret key copied' }).waitFor({ state: 'attached' })
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(whole)
    // Sending only: it may send but not read the keys.
    expect((await api('/api/v1/keys', whole)).status).toBe(403)
    await screenshot(page, 'api-keys-created')
    await page.getByRole('button', { name: 'Done' }).click()
    await page.getByText(whole).waitFor({ state: 'detached' })
    await table.getByRole('row').nth(3).waitFor()
    const made = table.getByRole('row').filter({ hasText: 'Web server' })
    expect(await made.textContent()).toContain('Sending only')
    expect(await made.locator('time').count()).toBe(2)

    // Revoke it from the keyboard: the dialog takes focus, Escape leaves it, Enter confirms.
    const revoke = page.getByRole('button', { name: `Revoke ${whole.slice(0, 11)}…` })
    await revoke.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('alertdialog', { name: `Revoke ${whole.slice(0, 11)}…?` })
    await dialog.waitFor()
    await screenshot(page, 'api-keys-revoke')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    // React Aria gives focus back to the trigger in the next frame after the dialog leaves.
    await page.waitForFunction(`document.activeElement?.getAttribute('aria-label') === ${JSON.stringify(`Revoke ${whole.slice(0, 11)}…`)}`, undefined, { timeout: 2000 })
    await revoke.click()
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await dialog.waitFor({ state: 'detached' })
    await table.getByRole('row').filter({ hasText: whole.slice(0, 11) }).getByText('Revoked').waitFor()
    expect((await api('/api/v1/keys', whole)).status).toBe(401)
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('API keys on a phone, and a viewer sees the keys but no way to change them', async () => {
    const page = await w.signedInAt('phone', '/console/api-keys', 'viewer@example.com')
    await page.getByRole('table', { name: 'Keys' }).waitFor()
    await page.getByText('Your role (viewer) can see the keys').waitFor()
    await expect(page.getByRole('button', { name: 'Create key' }).count()).resolves.toBe(0)
    await expect(page.getByRole('button', { name: /^Revoke/ }).count()).resolves.toBe(0)
    await screenshot(page, 'api-keys-viewer')
    await page.context().close()
    const owner = await w.signedInAt('phone', '/console/api-keys')
    await owner.getByRole('button', { name: 'Create key' }).waitFor()
    await screenshot(owner, 'api-keys')
    await owner.context().close()
    expect(w.problems).toEqual([])
  })

  test('SMTP relay: host, listening port, how to log in and a nodemailer snippet that copies', async () => {
    const relayPort = w.t.app.listeners()!.relay.port!
    for (const width of ['desktop', 'phone'] as const) {
      const page = await w.signedInAt(width, '/console/smtp')
      await page.getByRole('heading', { name: 'SMTP relay', level: 1 }).waitFor()
      const settings = page.getByRole('region', { name: 'Settings' })
      await settings.getByText('mail.example.test').waitFor()
      expect(await settings.textContent()).toContain(`${relayPort} with STARTTLS (listening)`)
      expect(await settings.textContent()).toContain('A secret API key of this project')
      // The test server listens on 127.0.0.1 and has no certificate of its own: both are said.
      await page.getByText('only programs on the server itself can connect').waitFor()
      await page.getByText('presents a self-signed one').waitFor()
      const snippet = String(await page.locator('pre').textContent())
      expect(snippet).toContain("host: 'mail.example.test'")
      expect(snippet).toContain(`port: ${relayPort},`)
      if (width === 'desktop') {
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
        await page.getByRole('button', { name: 'Copy nodemailer snippet' }).click()
        await page.getByRole('status').filter({ hasText: 'nodemailer snippet copied' }).waitFor({ state: 'attached' })
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe(snippet)
        await page.getByRole('link', { name: 'create one on the API keys page' }).click()
        await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
        await page.goBack()
        await page.getByRole('heading', { name: 'SMTP relay', level: 1 }).waitFor()
      }
      await screenshot(page, 'smtp-relay')
      await page.context().close()
    }
    expect(w.problems).toEqual([])
  })

  test('Suppressions: paged on the server, an address added (its error beside the field first) and removed', async () => {
    // 45 addresses, a second apart: newest first, so address 45 leads the first page.
    const start = Date.now() - 3_600_000
    await w.t.app.writer.run(async (trx) => {
      for (let i = 1; i <= 45; i++) await suppress(trx, project.id, `bounced${String(i).padStart(2, '0')}@example.net`, 'hard_bounce', '550 5.1.1 no such user', start + i * 1000)
    })
    for (const width of ['desktop', 'phone'] as const) {
      const page = await w.signedInAt(width, '/console/suppressions')
      const table = page.getByRole('table', { name: 'Suppressed addresses' })
      await table.getByText('bounced45@example.net').waitFor()
      const pages = page.getByRole('navigation', { name: 'Suppressed addresses pages' })
      await pages.getByText('1–20 of 45').waitFor()
      await expect(pages.getByRole('button', { name: 'Previous page' }).isDisabled()).resolves.toBe(true)
      await screenshot(page, 'suppressions')
      await pages.getByRole('button', { name: 'Next page' }).click()
      await pages.getByText('21–40 of 45').waitFor()
      await table.getByText('bounced25@example.net').waitFor()
      await pages.getByRole('button', { name: 'Next page' }).click()
      await pages.getByText('41–45 of 45').waitFor()
      await table.getByText('bounced01@example.net').waitFor()
      await expect(pages.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true)
      await pages.getByRole('button', { name: 'Previous page' }).click()
      await pages.getByText('21–40 of 45').waitFor()
      await page.context().close()
    }

    const page = await w.signedInAt('desktop', '/console/suppressions')
    await page.getByLabel('Email address').fill('not an address')
    await page.getByRole('button', { name: 'Suppress address' }).click()
    const field = page.getByLabel('Email address')
    await page.locator('.field-error').first().waitFor()
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true')
    await screenshot(page, 'suppressions-error')
    await field.fill('by-hand@example.org')
    await page.getByLabel('Note').fill('asked by phone')
    await page.getByRole('button', { name: 'Suppress address' }).click()
    const table = page.getByRole('table', { name: 'Suppressed addresses' })
    await table.getByRole('row').filter({ hasText: 'by-hand@example.org' }).getByText('Added by hand').waitFor()
    await page.getByText('1–20 of 46').waitFor()
    await expect(field.inputValue()).resolves.toBe('')
    await table.getByRole('button', { name: 'Remove by-hand@example.org' }).click()
    await page.getByRole('alertdialog', { name: 'Send to by-hand@example.org again?' }).getByRole('button', { name: 'Remove from the list' }).click()
    await page.getByText('1–20 of 45').waitFor()
    await table.getByText('by-hand@example.org').waitFor({ state: 'detached' })
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('Suppressions: a search narrows the list on the server, and a CSV import says what became of each line', async () => {
    const page = await w.signedInAt('desktop', '/console/suppressions')
    const table = page.getByRole('table', { name: 'Suppressed addresses' })
    await table.getByText('bounced45@example.net').waitFor()
    await page.getByLabel('Search addresses').fill('bounced1')
    await table.getByText('bounced45@example.net').waitFor({ state: 'detached' })
    // The old page's rows leave before the search's arrive: wait for the eleventh before counting.
    await table.getByRole('row').nth(10).waitFor()
    await expect(table.getByRole('row').count()).resolves.toBe(11)
    await page.getByLabel('Search addresses').fill('nobody-at-all')
    await page.getByText('No suppressed address contains “nobody-at-all”.').waitFor()
    await page.getByRole('button', { name: 'Clear search' }).click()
    await table.getByText('bounced45@example.net').waitFor()

    // No file chosen: said beside the field, nothing sent.
    await page.getByRole('button', { name: 'Import addresses' }).click()
    await page.getByText('Choose a CSV file first').waitFor()
    const csv = 'email,detail\nimported@example.org,from the old system\nnot-an-address,x\nbounced45@example.net,again\n'
    await page.getByLabel('CSV file').setInputFiles({ name: 'old-list.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await page.getByRole('button', { name: 'Import addresses' }).click()
    const result = page.getByRole('status').filter({ hasText: 'added' })
    await result.getByText('1 address added, 1 was on the list already, 1 line is not an address.').waitFor()
    await expect(page.getByRole('list', { name: 'Lines not imported' }).textContent()).resolves.toContain('Line 3')
    await table.getByRole('row').filter({ hasText: 'imported@example.org' }).getByText('from the old system').waitFor()
    await screenshot(page, 'suppressions-import')
    await page.context().close()
    expect(w.problems).toEqual([])
  })
})
