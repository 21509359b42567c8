// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { ARTIFACTS, describeInBrowser, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * The API document's page in Chromium with no network but loopback: every request that would
 * leave the machine is aborted, and none is made. The page draws the API from the server's own
 * files, under its Content-Security-Policy, with nothing refused.
 */

let w: ConsoleWorld

const isLoopback = (url: string) => {
  const { protocol, hostname } = new URL(url)
  if (protocol === 'data:' || protocol === 'blob:') return true
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname)
}

describeInBrowser('the API document at /swagger in Chromium, offline', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
  })
  afterAll(() => w?.close())

  test('shows the title and the operations from this server alone, nothing refused by its policy', async () => {
    const context = await w.browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: w.url })
    context.setDefaultTimeout(20_000)
    const leaving: string[] = []
    const problems: string[] = []
    await context.route('**/*', (route) => {
      const url = route.request().url()
      if (isLoopback(url)) return route.continue()
      leaving.push(url)
      return route.abort('internetdisconnected')
    })
    const page = await context.newPage()
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    const loaded: string[] = []
    page.on('requestfinished', (request) => loaded.push(request.url()))

    // Swagger UI draws only the operations in view: a deep link scrolls to one and opens it.
    const response = await page.goto('/swagger#/Sending/postV1Send')
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'")
    await page.getByRole('heading', { name: /Mailstead API/ }).waitFor()
    const send = page.locator('.opblock.is-open', { has: page.locator('.opblock-summary-path', { hasText: /^\/v1\/send$/ }) })
    await send.waitFor()
    expect(await send.locator('.opblock-summary-method').textContent()).toBe('POST')
    // Opened, it shows the request's example (made from its named schema) and its answers.
    await page.screenshot({ path: `${ARTIFACTS}/api-document-send.png` })
    await send.getByText('Welcome aboard').first().waitFor()
    await send.getByText('Invalid fields').first().waitFor()
    // The first operations of the document are drawn at the top without a link.
    await page.goto('/swagger')
    await page.locator('.opblock-summary-path', { hasText: /^\/health$/ }).waitFor()
    await page.screenshot({ path: `${ARTIFACTS}/api-document-top.png` })

    expect(leaving).toEqual([])
    expect(loaded.filter((url) => !isLoopback(url))).toEqual([])
    expect(loaded.some((url) => url.includes('/swagger/assets/') && url.endsWith('swagger-ui-bundle.js'))).toBe(true)
    expect(problems).toEqual([])
    await context.close()
  })
})
