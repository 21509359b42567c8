import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'bun:test'
import { chromium, type Browser, type Page } from 'playwright-core'
import { PASSWORD } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/*
 * The console in a real browser: Debian's Chromium driven by playwright-core (its own browser
 * downloads cannot be fetched here). One Chromium for a whole file; a fresh context, so fresh
 * cookies, for each page a test opens. Pages are driven by what a person reads: labels, roles,
 * button text.
 */

export const CHROMIUM = '/usr/bin/chromium'
/*
 * IsolateSandboxedIframes is off: Chromium would otherwise give the email preview (a sandboxed
 * frame, an origin of its own) a process of its own, which Playwright now and then never attached
 * to, and which was painted only once scrolled to. The sandbox itself is unchanged: emails.test.ts
 * checks the frame's origin is opaque and that nothing in it runs.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-features=IsolateSandboxedIframes',
]
/** Screenshots go here, never committed (.gitignore): look at them after a run. */
export const ARTIFACTS = join(import.meta.dir, 'artifacts')
export const WIDTHS = { desktop: 1280, phone: 390 } as const
export type Width = keyof typeof WIDTHS

/**
 * describe(), or when Chromium is missing one skipped test that says why: a fresh machine runs
 * `npm test` without it (CI installs it, see .ci/run).
 */
export function describeInBrowser(name: string, body: () => void) {
  if (existsSync(CHROMIUM)) return describe(name, body)
  describe(name, () => {
    test.skip(`skipped: ${CHROMIUM} is missing (apt-get install chromium)`, () => {})
  })
}

/** The server's secret in browser tests, so that a test can make the setup link's token. */
export const SECRET = 'browser-test-secret-browser-test-secret'

/** How a page is opened: the system colour scheme Chromium reports (light unless said). */
export interface OpenOptions {
  colorScheme?: 'light' | 'dark'
}

export interface ConsoleWorld {
  t: TestApp
  /** The server's address, e.g. http://127.0.0.1:40123 */
  url: string
  browser: Browser
  /** A page in a fresh context of that width; what it logs as an error or a refused load lands in `problems`. */
  open(width: Width, path?: string, options?: OpenOptions): Promise<Page>
  /** Fills the sign-in form of `page` and submits it. */
  signIn(page: Page, email: string, password?: string): Promise<void>
  /** A page of that width signed in as `email` (the owner by default), showing `path` once the console's navigation is there. */
  signedInAt(width: Width, path: string, email?: string, options?: OpenOptions): Promise<Page>
  /** Console errors (but API answers of 4xx), page errors and CSP refusals seen so far, each with the page's address. */
  problems: string[]
  close(): Promise<void>
}

/** A started server on a fresh database and one Chromium. */
export async function startConsoleWorld(settings: Record<string, string> = {}): Promise<ConsoleWorld> {
  const t = await createTestApp({ secret: SECRET, ...settings })
  await t.app.start()
  const url = t.app.url.replace('0.0.0.0', '127.0.0.1')
  // From source the console is bundled at its first request (seconds on a busy machine): once
  // here, so that no page's first load waits for it within its 10 s.
  if ((await fetch(`${url}/console/`)).status !== 200) throw new Error('the console did not load')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  const problems: string[] = []
  const world: ConsoleWorld = {
    t,
    url,
    browser,
    problems,
    async signIn(page, email, password = PASSWORD) {
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill(password)
      await page.getByRole('button', { name: 'Sign in' }).click()
    },
    async signedInAt(width, path, email = 'owner@example.com', options = {}) {
      const page = await world.open(width, path, options)
      await world.signIn(page, email)
      await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
      return page
    },
    async open(width, path = '/console/', options = {}) {
      const context = await browser.newContext({ viewport: { width: WIDTHS[width], height: width === 'phone' ? 844 : 800 }, baseURL: url, colorScheme: options.colorScheme ?? 'light' })
      // Under the test's own timeout, so that a wait that fails says what it waited for, and the
      // browser is not killed with the test.
      context.setDefaultTimeout(10_000)
      const page = await context.newPage()
      page.on('console', (message) => {
        // An API answer of 4xx is logged by Chromium as a failed load: the page expects those.
        if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
          problems.push(`${page.url()}: ${message.text()}`)
        }
      })
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`))
      await page.goto(path)
      return page
    },
    async close() {
      await browser.close()
      await t.close()
    },
  }
  return world
}

/**
 * A full-page screenshot, named by page, width and (when the console shows its dark theme) "dark":
 * test/browser/artifacts/<name>-<width>.png or <name>-<width>-dark.png
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true })
  const width = page.viewportSize()?.width ?? 0
  const dark = (await page.evaluate("getComputedStyle(document.documentElement).colorScheme === 'dark' || (document.documentElement.dataset.theme !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches)")) as boolean
  const path = join(ARTIFACTS, `${name}-${width}${dark ? '-dark' : ''}.png`)
  // The whole page in the viewport while it is taken: Chromium paints a frame (the email preview)
  // below the viewport blank in a full-page capture.
  const viewport = page.viewportSize()
  const height = (await page.evaluate('document.documentElement.scrollHeight')) as number
  const taller = viewport !== null && height > viewport.height
  if (taller) await page.setViewportSize({ width: viewport.width, height })
  await page.screenshot({ path, fullPage: true })
  if (taller) await page.setViewportSize(viewport)
  return path
}
