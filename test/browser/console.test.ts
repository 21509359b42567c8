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

  test('before its scripts arrive the page shows its shell, light or dark as the system is, with nothing refused; the app then replaces it', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await w.open('desktop', 'about:blank')
      await page.emulateMedia({ colorScheme: scheme })
      // The scripts are held back until the shell has been looked at.
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      await page.route('**/console/assets/*.js', async (route) => {
        await held
        await route.continue()
      })
      await page.goto('/console/', { waitUntil: 'commit' })
      await page.getByRole('status').filter({ hasText: 'Loading the console…' }).waitFor()
      expect(await page.locator('.boot-brand').textContent()).toBe('Mailstead')
      const background = await page.evaluate(`getComputedStyle(document.querySelector('.boot')).backgroundColor`)
      expect(background).toBe(scheme === 'dark' ? 'rgb(15, 17, 21)' : 'rgb(245, 246, 248)')
      await screenshot(page, `first-paint-${scheme}`)
      release()
      await page.getByRole('heading', { name: 'Set up Mailstead' }).waitFor()
      expect(await page.locator('[data-shell]').count()).toBe(0)
      await page.context().close()
    }
    expect(w.problems).toEqual([])
  })
})
