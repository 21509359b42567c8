import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

/**
 * axe-core's violations on the page as it stands, in the light and the dark colour scheme, as
 * "scheme rule: target" lines. Injected through the debugger protocol, which the console's CSP
 * does not govern; frames (the email's sandboxed document) are left out, being the email's.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const found: string[] = []
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE)
    const result = (await page.evaluate('window.axe.run(document, { iframes: false, resultTypes: ["violations"] })')) as {
      violations: Array<{ id: string; nodes: Array<{ target: string[] }> }>
    }
    for (const v of result.violations) for (const node of v.nodes) found.push(`${colorScheme} ${v.id}: ${node.target.join(' ')}`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return found
}
