// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { describeInBrowser, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * Double-clicking a submit button sends one request: counted as Chromium sends them, on a form that
 * leaves the page when done (a domain added) and on one that stays (an address suppressed).
 */

let w: ConsoleWorld

/** The requests the page sends with `method` to a path ending in `path`, as a live count. */
function countRequests(page: Page, method: string, path: string): { count: number } {
  const seen = { count: 0 }
  page.on('request', (request) => {
    if (request.method() === method && new URL(request.url()).pathname.endsWith(path)) seen.count++
  })
  return seen
}

describeInBrowser('a submit button pressed twice in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    const owner = await makeAccount(w.t, 'owner@example.com')
    await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
  })
  afterAll(() => w?.close())

  test('a double-click on Add domain sends one request and adds one domain', async () => {
    const page = await w.signedInAt('desktop', '/console/domains')
    await page.getByLabel('Domain name').fill('mail.example.org')
    const posts = countRequests(page, 'POST', '/domains')
    await page.getByRole('button', { name: 'Add domain' }).dblclick()
    await page.getByRole('heading', { name: 'mail.example.org', level: 1 }).waitFor()
    await page.waitForLoadState('networkidle')
    expect(posts.count).toBe(1)
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  test('a double-click on Suppress address sends one request; the next submit sends again', async () => {
    const page = await w.signedInAt('desktop', '/console/suppressions')
    const posts = countRequests(page, 'POST', '/suppressions')
    await page.getByLabel('Email address').fill('twice@example.org')
    await page.getByRole('button', { name: 'Suppress address' }).dblclick()
    await page.getByRole('table', { name: 'Suppressed addresses' }).getByText('twice@example.org').waitFor()
    await page.waitForLoadState('networkidle')
    expect(posts.count).toBe(1)
    // Once the first has finished, the button works again.
    await page.getByLabel('Email address').fill('again@example.org')
    await page.getByRole('button', { name: 'Suppress address' }).click()
    await page.getByRole('table', { name: 'Suppressed addresses' }).getByText('again@example.org').waitFor()
    expect(posts.count).toBe(2)
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)
})
