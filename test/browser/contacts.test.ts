// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * The Contacts page in Chromium over a few hundred contacts made through the API: the search, a
 * data-field filter and a segment filter (kept in the address), the next page, a sort, a bulk
 * unsubscribe of ticked rows, an admin's bulk delete of every contact a filter matches, a member
 * and a viewer who see less, and the export downloaded and read.
 */

let w: ConsoleWorld
let project: { id: number; secretKey: string }
let segmentId: string

const COUNT = 300
const email = (i: number) => `c${String(i).padStart(3, '0')}@example.com`
const plan = (i: number) => (i % 3 === 0 ? 'pro' : 'free')

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${w.url}${path}`, { method, headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as any }
}
const total = async (query = '') => (await api('GET', `/contacts?limit=1${query}`)).body.total as number

/** The page's range line ("1–50 of 300"). */
const range = (page: Page, text: string) => page.locator('.pager .muted, .pager-total').filter({ hasText: text }).waitFor()
const table = (page: Page) => page.getByRole('table', { name: /^Contacts/ })

/** Ticks a checkbox by its label (React Aria's input is hidden under it). */
const tick = (checkbox: ReturnType<Page['getByRole']>) => checkbox.locator('xpath=ancestor::label[1]').click()

async function filterBy(page: Page, fill: (popover: ReturnType<Page['getByRole']>) => Promise<void>) {
  await page.getByRole('button', { name: /^Filters/ }).click()
  const popover = page.getByRole('dialog', { name: 'Filters' })
  await fill(popover)
  await popover.getByRole('button', { name: 'Apply filters' }).click()
}

describeInBrowser('the Contacts page in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    const owner = await makeAccount(w.t, 'owner@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const account = await makeAccount(w.t, `${role}@example.com`)
      await w.t.app.writer.run((trx) => addMember(trx, project.id, account.id, role, Date.now()))
    }
    for (let from = 0; from < COUNT; from += 50) {
      const made = await Promise.all(Array.from({ length: 50 }, (_, k) => api('POST', '/contacts', { email: email(from + k), data: { plan: plan(from + k), n: from + k } })))
      expect(made.every((r) => r.status === 201)).toBe(true)
    }
    const segment = await api('POST', '/segments', { name: 'Late signups', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.n', operator: 'gte', value: 290 }] }] } })
    expect(segment.status).toBe(201)
    segmentId = segment.body.id
    expect((await api('POST', '/api/v1/contactBooks', { name: 'Newsletter' })).status).toBe(200)
  }, 120_000)
  afterAll(() => w?.close())

  test('search, a data field, a segment, the next page and a sort, kept in the address; ticked rows unsubscribed; the export read', async () => {
    const page = await w.signedInAt('desktop', '/console/contacts')
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
    await range(page, `1–50 of ${COUNT}`)
    expect(await table(page).getByRole('row').count()).toBe(51)
    await page.getByRole('button', { name: 'Next page' }).click()
    await range(page, `51–100 of ${COUNT}`)

    // Sorted by email, from its header: the address says so, and the first row is the first address.
    await table(page).getByRole('button', { name: /^Email/ }).click()
    await page.waitForURL(/sort=email&dir=asc/)
    await expect(table(page).getByRole('row').nth(1).textContent()).resolves.toContain(email(0))
    await expect(table(page).getByRole('columnheader', { name: /^Email/ }).getAttribute('aria-sort')).resolves.toBe('ascending')

    await page.getByRole('searchbox', { name: 'Search by email' }).fill('c29')
    await page.waitForURL(/search=c29/)
    await range(page, '1–10 of 10')

    await page.getByRole('button', { name: 'Clear search' }).click()
    await page.waitForURL((url) => !url.search.includes('search='))
    await filterBy(page, async (popover) => {
      await popover.getByLabel('Key').fill('plan')
      await popover.getByLabel('Operator').selectOption('equals')
      await popover.getByLabel('Value').fill('pro')
    })
    await page.getByRole('list', { name: 'Filters on' }).getByText('plan is “pro”').waitFor()
    await range(page, '1–50 of 100')
    expect(new URL(page.url()).search).toContain('key=plan&op=equals&value=pro')

    await filterBy(page, async (popover) => void (await popover.getByLabel('Segment').selectOption({ label: 'Late signups' })))
    await page.getByRole('list', { name: 'Filters on' }).getByText('In Late signups').waitFor()
    await range(page, '1–3 of 3')
    expect(new URL(page.url()).search).toContain(`segment=${segmentId}`)
    await screenshot(page, 'contacts-filtered')

    // The export of the filter, downloaded as a file and read.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()])
    const lines = readFileSync(String(await download.path()), 'utf8').trim().split('\n')
    expect(lines[0]).toBe('email,subscribed,createdAt,updatedAt,n,plan')
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([email(291), email(294), email(297)])

    // Two rows ticked, unsubscribed after asking; the toast says how many.
    await tick(table(page).getByRole('checkbox', { name: `Select ${email(291)}` }))
    await tick(table(page).getByRole('checkbox', { name: `Select ${email(294)}` }))
    const bar = page.getByRole('region', { name: 'Selection' })
    await bar.getByText('2 selected').waitFor()
    await bar.getByRole('button', { name: 'Unsubscribe' }).click()
    await page.getByRole('alertdialog', { name: 'Unsubscribe 2 contacts?' }).getByRole('button', { name: 'Unsubscribe' }).click()
    await page.getByText('2 contacts unsubscribed').waitFor()
    expect(await total('&subscribed=false')).toBe(2)
    await table(page).getByRole('row').filter({ hasText: email(291) }).getByText('Unsubscribed').waitFor()

    // Filters removed from their chips; a row links to its contact's page.
    await page.getByRole('button', { name: 'Remove filter In Late signups' }).click()
    await page.getByRole('button', { name: 'Remove filter plan is “pro”' }).click()
    await range(page, `1–50 of ${COUNT}`)
    expect(await table(page).getByRole('link', { name: email(0) }).getAttribute('href')).toMatch(/^\/console\/contacts\/[0-9a-f-]{36}$/)
    await screenshot(page, 'contacts')
    expect(await axeViolations(page)).toEqual([])
    await page.context().close()
  }, 120_000)

  test('an admin deletes every contact a filter matches, past the page shown', async () => {
    const page = await w.signedInAt('desktop', '/console/contacts?search=c2')
    await range(page, '1–50 of 100')
    await tick(table(page).getByRole('checkbox', { name: 'Select every row shown' }))
    const bar = page.getByRole('region', { name: 'Selection' })
    await bar.getByText('50 selected').waitFor()
    await bar.getByRole('button', { name: 'Select all 100 matching the filters' }).click()
    await bar.getByRole('button', { name: 'Delete' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Delete all 100 matching contacts?' })
    await screenshot(page, 'contacts-delete')
    await confirm.getByRole('button', { name: 'Delete contacts' }).click()
    await page.getByText('100 contacts deleted').waitFor()
    await page.getByText('No contact matches these filters.').waitFor()
    expect(await total()).toBe(COUNT - 100)
    expect(await total('&search=c2')).toBe(0)
    await page.context().close()
  }, 60_000)

  test('a member acts on contacts but is not offered delete; a viewer is offered no change', async () => {
    const member = await w.signedInAt('desktop', '/console/contacts', 'member@example.com')
    await tick(table(member).getByRole('checkbox', { name: `Select ${email(199)}` }))
    const bar = member.getByRole('region', { name: 'Selection' })
    await bar.getByRole('button', { name: 'Add to book' }).waitFor()
    expect(await bar.getByRole('button', { name: 'Delete' }).count()).toBe(0)
    await bar.getByRole('button', { name: 'Add to book' }).click()
    const dialog = member.getByRole('dialog', { name: 'Add to book: 1 contact' })
    await dialog.getByLabel('Contact book').selectOption({ label: '📙 Newsletter (0)' })
    await dialog.getByRole('button', { name: 'Add to book' }).click()
    await member.getByText('1 contact added to the book').waitFor()
    await member.context().close()

    const viewer = await w.signedInAt('desktop', '/console/contacts', 'viewer@example.com')
    await table(viewer).getByRole('link', { name: email(199) }).waitFor()
    expect(await viewer.getByRole('checkbox').count()).toBe(0)
    expect(await viewer.getByRole('link', { name: 'Import' }).count()).toBe(0)
    await viewer.getByRole('link', { name: 'Export CSV' }).waitFor()
    await viewer.context().close()
  }, 60_000)

  test('on a phone: the rows as cards, nothing wider than the screen, no axe violation', async () => {
    const page = await w.signedInAt('phone', '/console/contacts?key=plan&op=equals&value=free')
    await page.getByRole('list', { name: 'Filters on' }).getByText('plan is “free”').waitFor()
    await tick(table(page).getByRole('checkbox').nth(1))
    await page.getByRole('region', { name: 'Selection' }).getByText('1 selected').waitFor()
    await screenshot(page, 'contacts')
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
    expect(await axeViolations(page)).toEqual([])
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  test('a project with no contacts says how to add them', async () => {
    const empty = await w.t.app.writer.run(async (trx) => {
      const owner = await trx.selectFrom('accounts').select('id').where('email', '=', 'owner@example.com').executeTakeFirstOrThrow()
      return createOwnedProject(trx, owner.id, 'Empty', Date.now())
    })
    const page = await w.signedInAt('desktop', '/console/contacts')
    await page.evaluate((id) => localStorage.setItem('mailstead.project', String(id)), empty.id)
    await page.reload()
    await page.getByText('No contacts yet').waitFor()
    await page.getByRole('link', { name: 'Import contacts' }).waitFor()
    await screenshot(page, 'contacts-empty')
    await page.context().close()
  }, 60_000)
})
