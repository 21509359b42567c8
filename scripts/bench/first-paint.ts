// How soon the console shows something on a slow link: Chromium driven through playwright-core,
// its network slowed with CDP's Network.emulateNetworkConditions, each load in a fresh context (a
// cold cache). Times are from navigation start, read from the page's own performance entries.
import { chromium } from 'playwright-core'

export interface FirstPaint {
  /** The `first-contentful-paint` entry: the first text or image painted. */
  firstContentfulPaint: number
  /** When the HTML's last byte had arrived (its navigation entry's responseEnd). */
  htmlReceived: number
  /** When the app had drawn itself in place of the shell (the shell's `[data-shell]` gone, something else in #root). */
  appReady: number
}

const LATENCY_MS = 400
const BYTES_PER_SECOND = (400 * 1000) / 8

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function firstPaint(executablePath: string, url: string, runs: number): Promise<FirstPaint> {
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] })
  try {
    const loads: FirstPaint[] = []
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext()
      const page = await context.newPage()
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: LATENCY_MS, downloadThroughput: BYTES_PER_SECOND, uploadThroughput: BYTES_PER_SECOND })
      await page.goto(url, { waitUntil: 'commit' })
      // The app is ready when #root holds something that is not the shell.
      // Functions run in the page (a string would be eval, which the console's policy refuses); `any`
      // because this file is type-checked without the DOM's types.
      await page.waitForFunction(() => {
        const root = (globalThis as any).document.getElementById('root')
        return !!root && root.children.length > 0 && !root.querySelector('[data-shell]')
      }, undefined, { timeout: 120_000, polling: 20 })
      const appReady = await page.evaluate(() => performance.now())
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 30_000 })
      const entries = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
        html: (performance.getEntriesByType('navigation' as never)[0] as any).responseEnd as number,
      }))
      loads.push({ firstContentfulPaint: entries.fcp, htmlReceived: entries.html, appReady })
      await context.close()
    }
    const round = (pick: (load: FirstPaint) => number) => Math.round(median(loads.map(pick)))
    return { firstContentfulPaint: round((l) => l.firstContentfulPaint), htmlReceived: round((l) => l.htmlReceived), appReady: round((l) => l.appReady) }
  } finally {
    await browser.close()
  }
}
