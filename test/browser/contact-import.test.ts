// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

/*
 * The contact import page: a CSV with a renamed email column and bad rows, mapped, imported while
 * its progress is followed, and its report of refused rows downloaded and read; a file that is not
 * UTF-8 gets the server's message; a viewer sees the imports but cannot start one.
 */

let w: ConsoleWorld
let project: { id: number; secretKey: string }

const CSV = [
  'E-mail address,First name,Plan,Junk',
  'ann@example.com,Ann,pro,x',
  'not-an-address,Bob,free,y',
  'zoe@example.com,Zoë,pro,z',
  'short@example.com',
  'cy@example.com,Cy,,w',
].join('\n')

const contacts = async () => {
  const response = await fetch(`${w.url}/contacts?limit=100`, { headers: { authorization: `Bearer ${project.secretKey}` } })
  const body = (await response.json()) as { contacts: Array<{ email: string; data: Record<string, unknown> }> }
  return Object.fromEntries(body.contacts.map((c) => [c.email, c.data]))
}

const imports = async () => {
  const response = await fetch(`${w.url}/contacts/import`, { headers: { authorization: `Bearer ${project.secretKey}` } })
  return ((await response.json()) as { imports: Array<{ fileName: string; status: string }> }).imports
}

/** Chooses a file through the page's file picker, as a person does. */
async function chooseFile(page: Page, name: string, bytes: Uint8Array) {
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: 'Choose a file' }).click()
  await (await chooser).setFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(bytes) })
  await page.getByRole('heading', { name: 'Map the columns' }).waitFor()
}

/** Drops a file from disk on the page's drop zone: a real drag, through Chromium's DevTools protocol, as from a file manager. */
async function dropFile(page: Page, name: string, text: string) {
  const path = join(mkdtempSync(join(tmpdir(), 'import-drop-')), name)
  writeFileSync(path, text)
  const box = (await page.locator('.drop-zone').boundingBox())!
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
  const cdp = await page.context().newCDPSession(page)
  const data = { items: [], files: [path], dragOperationsMask: 1 }
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type: type as 'drop', ...at, data })
  await page.getByRole('heading', { name: 'Map the columns' }).waitFor()
}

const importAs = (page: Page, column: string) => page.getByRole('combobox', { name: `Import "${column}" as` })

describeInBrowser('the contact import page in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, viewer.id, 'viewer', Date.now()))
  })

  afterAll(async () => {
    await w?.close()
  })

  test('a CSV with a renamed email column and bad rows: mapped, imported, followed, and its report read', async () => {
    const page = await w.signedInAt('desktop', '/console/contacts/import')
    await page.getByRole('heading', { name: 'Import contacts', level: 1 }).waitFor()
    await page.getByText('No imports yet').waitFor()
    await chooseFile(page, 'people.csv', new TextEncoder().encode(CSV))

    // Guessed from the header: the renamed column is the email, the others data keys.
    expect(await importAs(page, 'E-mail address').inputValue()).toBe('email')
    expect(await importAs(page, 'Plan').inputValue()).toBe('data')
    await page.getByRole('textbox', { name: 'Data key for "Plan"' }).fill('tier')
    await importAs(page, 'Junk').selectOption('ignore')
    const preview = page.getByRole('table', { name: /rows as they will be imported/ })
    await expect(preview.getByRole('columnheader').allInnerTexts()).resolves.toEqual(['email', 'First name', 'tier'])
    await preview.getByRole('cell', { name: 'ann@example.com' }).waitFor()
    await preview.getByRole('cell', { name: /not-an-address Refused not a valid address/ }).waitFor()
    await preview.getByRole('cell', { name: /short@example.com Refused the row has 1 field where the header has 4/ }).waitFor()
    expect(await preview.getByRole('row').count()).toBe(6)
    await page.getByText(/people\.csv · \d+ bytes · 4 columns/).waitFor()
    await screenshot(page, 'contact-import-mapping')
    expect(await axeViolations(page)).toEqual([])

    // Two columns to the email are refused before anything is sent.
    await importAs(page, 'First name').selectOption('email')
    await page.getByText('Only one column can be the email.').waitFor()
    expect(await page.getByRole('button', { name: 'Import contacts' }).isDisabled()).toBe(true)
    await importAs(page, 'First name').selectOption('data')

    // The runner held, the import waits, and the page follows it from there to its end.
    await w.t.app.imports.stop()
    await page.getByRole('button', { name: 'Import contacts' }).click()
    const waiting = page.getByRole('progressbar', { name: 'Waiting to import people.csv' })
    await waiting.waitFor()
    expect(await waiting.getAttribute('aria-valuenow')).toBe('0')
    expect(new URL(page.url()).search).toMatch(/^\?id=/)
    await page.getByRole('table', { name: 'Recent imports' }).getByRole('row', { name: /people\.csv.*Waiting/ }).waitFor()
    await screenshot(page, 'contact-import-waiting')
    await w.t.app.imports.start()
    await page.getByRole('heading', { name: 'Import finished' }).waitFor()
    const bar = page.getByRole('progressbar', { name: 'Imported people.csv' })
    expect(await bar.getAttribute('aria-valuenow')).toBe('100')
    const counts = page.getByRole('definition')
    await expect(counts.allInnerTexts()).resolves.toEqual(['5', '3', '0', '2'])
    await page.getByText('2 rows were refused.').waitFor()

    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Download report of refused rows' }).click()
    const report = await download
    expect(report.suggestedFilename()).toMatch(/^import-.+-refused-rows\.csv$/)
    expect(readFileSync((await report.path())!, 'utf8').trim().split('\n')).toEqual([
      'line,reason',
      '3,"""not-an-address"": The address is not valid: it must look like name@domain."',
      '5,the row has 1 field where the header has 4',
    ])

    expect(await contacts()).toEqual({
      'ann@example.com': { 'First name': 'Ann', tier: 'pro' },
      'zoe@example.com': { 'First name': 'Zoë', tier: 'pro' },
      'cy@example.com': { 'First name': 'Cy' },
    })
    const recent = page.getByRole('table', { name: 'Recent imports' })
    await recent.getByRole('row', { name: /people\.csv.*Completed/ }).waitFor()
    await screenshot(page, 'contact-import-result')
    expect(await axeViolations(page)).toEqual([])

    await page.getByRole('button', { name: 'Import another file' }).click()
    await page.getByRole('button', { name: 'Choose a file' }).waitFor()
    await page.getByRole('link', { name: 'Back to contacts' }).click()
    await page.waitForURL(/\/console\/contacts$/)
    expect(w.problems).toEqual([])
    await page.context().close()
  })

  test('a file that is not UTF-8 is refused with the server\'s message, and nothing is imported', async () => {
    const before = (await imports()).length
    const page = await w.signedInAt('desktop', '/console/contacts/import')
    const latin1 = Uint8Array.from([...'email,name\nzoe@example.com,Zo\u00eb\n'].map((c) => c.charCodeAt(0)))
    await chooseFile(page, 'latin1.csv', latin1)
    await page.getByText('This file does not look like UTF-8 text').waitFor()
    await page.getByRole('button', { name: 'Import contacts' }).click()
    const alert = page.getByRole('alert').filter({ hasText: 'The file was refused' })
    await alert.waitFor()
    await alert.getByText(/line 2 holds bytes that are not UTF-8/i).waitFor()
    await alert.getByText(/CSV UTF-8/).waitFor()
    await screenshot(page, 'contact-import-not-utf8')
    expect(await imports()).toHaveLength(before)
    await page.context().close()
  })

  for (const width of ['desktop', 'phone'] as const satisfies Width[]) {
    test(`at ${width} width: a file dropped, the steps fit; a viewer sees the imports without the upload`, async () => {
      const page = await w.signedInAt(width, '/console/contacts/import')
      await dropFile(page, 'people.csv', CSV)
      await screenshot(page, 'contact-import-mapping')
      if (width === 'phone') expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
      await page.getByRole('button', { name: 'Import contacts' }).click()
      await page.getByRole('heading', { name: 'Import finished' }).waitFor()
      await screenshot(page, 'contact-import-result')
      if (width === 'phone') expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
      await page.context().close()

      const viewer = await w.signedInAt(width, '/console/contacts/import', 'viewer@example.com')
      await viewer.getByText('Your role in this project sees imports but does not start them').waitFor()
      expect(await viewer.getByRole('button', { name: 'Choose a file' }).count()).toBe(0)
      await viewer.getByRole('table', { name: 'Recent imports' }).getByRole('row', { name: /people\.csv/ }).first().waitFor()
      await screenshot(viewer, 'contact-import-viewer')
      expect(await axeViolations(viewer)).toEqual([])
      await viewer.context().close()
    })
  }
})
