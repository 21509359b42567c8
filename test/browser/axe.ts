import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

/**
 * axe-core's violations on the page as it stands, in the light and the dark colour scheme, as
 * "scheme rule: target" lines. Injected through the debugger protocol, which the console's CSP
 * does not govern; frames (the email's sandboxed document) are left out, being the email's.
 * The console has one palette (color-scheme: light): the dark run checks it stays so.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const found: string[] = []
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE)
    // React Aria's live announcer keeps, for a few seconds, an announcement labelled by an element
    // already gone (the Sign in button's pending state): transient, and not the page's own.
    const context = '{ include: [["html"]], exclude: [["[data-live-announcer]"]] }'
    const result = (await page.evaluate(`window.axe.run(${context}, { iframes: false, resultTypes: ["violations"] })`)) as {
      violations: Array<{ id: string; nodes: Array<{ target: string[] }> }>
    }
    for (const v of result.violations) for (const node of v.nodes) found.push(`${colorScheme} ${v.id}: ${node.target.join(' ')}`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return found
}
