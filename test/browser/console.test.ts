// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

let w: ConsoleWorld

describeInBrowser('the console in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
  })
  afterAll(() => w?.close())

  test('a browser that opens / lands in the console, which loads with nothing refused', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await w.open(width, '/')
      await page.getByRole('heading', { name: 'Set up Mailstead' }).waitFor()
      expect(new URL(page.url()).pathname).toStartWith('/console/')
      await screenshot(page, 'landing')
      await page.context().close()
    }
    expect(w.problems).toEqual([])
  })

  test('the policy holds in the browser: a style or script inserted at run time is refused', async () => {
    const page = await w.open('desktop')
    await page.getByRole('heading', { name: 'Set up Mailstead' }).waitFor()
    const color = await page.evaluate(`(() => {
      const style = document.createElement('style')
      style.textContent = 'body { color: rgb(255, 0, 0) }'
      document.head.append(style)
      const script = document.createElement('script')
      script.textContent = 'window.injected = true'
      document.head.append(script)
      return getComputedStyle(document.body).color
    })()`)
    expect(color).not.toBe('rgb(255, 0, 0)')
    expect(await page.evaluate('window.injected')).toBeUndefined()
    expect(w.problems.join('\n')).toContain('Content Security Policy')
    w.problems.length = 0
    await page.context().close()
  })
})
