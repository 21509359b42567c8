// @database-incidental: the documentation in a browser; the server needs a database to start, and the pages read none
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

let w: ConsoleWorld

/** Whether the page is wider than its window: something that makes a phone scroll sideways. */
const scrollsSideways = (page: Page) => page.evaluate('document.documentElement.scrollWidth > window.innerWidth') as Promise<boolean>

describeInBrowser('the documentation at /docs in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
  })
  afterAll(() => w?.close())

  for (const width of ['desktop', 'phone'] as const satisfies readonly Width[]) {
    for (const [path, name, heading] of [
      ['/docs', 'docs-index', 'Mailstead'],
      ['/docs/architecture', 'docs-architecture', 'Architecture'],
    ] as const) {
      test(`${path} passes axe at ${width} width, light and dark, and does not scroll sideways`, async () => {
        const page = await w.open(width, path)
        await page.getByRole('heading', { level: 1, name: heading }).waitFor()
        expect(await axeViolations(page)).toEqual([])
        expect(await scrollsSideways(page)).toBe(false)
        // A full-page picture of a long page takes a while on a busy machine.
        page.setDefaultTimeout(30_000)
        await screenshot(page, name)
        await page.context().close()
        expect(w.problems).toEqual([])
      })
    }

    test(`the search box, found by its name, leads to results that pass axe at ${width} width`, async () => {
      const page = await w.open(width, '/docs/architecture')
      const search = page.getByRole('searchbox', { name: 'Search the documentation' })
      await search.fill('claim keeper')
      await search.press('Enter')
      await page.waitForURL(/\/docs\/search\?q=claim\+keeper$/)
      await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor()
      expect(await page.getByRole('searchbox', { name: 'Search the documentation' }).inputValue()).toBe('claim keeper')
      expect(await page.locator('mark').count()).toBeGreaterThan(0)
      // A result leads to the page, at the heading the line stands under.
      const first = page.locator('.results ol a').first()
      expect(await first.getAttribute('href')).toMatch(/^\/docs\/[^#]+(#.+)?$/)
      expect(await axeViolations(page)).toEqual([])
      expect(await scrollsSideways(page)).toBe(false)
      await screenshot(page, 'docs-search')
      await page.context().close()
      expect(w.problems).toEqual([])
    })
  }
})
