import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

/**
 * axe-core's violations on the page as it stands, in the light and the dark colour scheme, as
 * "scheme rule: target html" lines. Injected through the debugger protocol, which the console's CSP
 * does not govern; frames (the email's sandboxed document) are left out, being the email's.
 * The console follows the system's scheme (prefers-color-scheme) unless a theme was picked in its
 * switch, so the two runs check both palettes (or, with a theme picked, that one twice).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const found: string[] = []
  for (const colorScheme of ['light', 'dark'] as const) {
    // Colours ease over 200 ms (tokens.css --duration), none with reduced motion: measured settled.
    await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' })
    await page.waitForTimeout(50)
    if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE)
    // React Aria's live announcer keeps, for a few seconds, an announcement labelled by an element
    // already gone (the Sign in button's pending state): transient, and not the page's own.
    const context = '{ include: [["html"]], exclude: [["[data-live-announcer]"]] }'
    const result = (await page.evaluate(`window.axe.run(${context}, { iframes: false, resultTypes: ["violations"] })`)) as {
      violations: Array<{ id: string; nodes: Array<{ target: string[]; html: string }> }>
    }
    for (const v of result.violations) for (const node of v.nodes) found.push(`${colorScheme} ${v.id}: ${node.target.join(' ')} ${node.html.slice(0, 160)}`)
  }
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' })
  return found
}
