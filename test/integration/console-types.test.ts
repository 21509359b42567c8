// @database-incidental: builds the API document from the routes alone, with no database
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { COMMAND, consoleTypes, GENERATED_PATH } from '../../scripts/console-types.ts'

/*
 * The console's API types (src/console/api/api-schema.generated.ts) are made from the server's
 * OpenAPI document: a route whose schema changed without the file being made again fails here.
 */

describe("the console's API types", () => {
  test(`are current with the routes' schemas (regenerate: ${COMMAND})`, async () => {
    const current = readFileSync(GENERATED_PATH, 'utf8')
    const made = await consoleTypes()
    if (current !== made) throw new Error(`src/console/api/api-schema.generated.ts is not what the routes' schemas make: run \`${COMMAND}\` and commit it.`)
    expect(current).toBe(made)
  })

  test('name the document\'s shapes the console reads', async () => {
    const made = await consoleTypes()
    for (const name of ['Domain', 'EmailSummary', 'EmailDelivery', 'Webhook', 'WebhookDelivery', 'Suppression', 'QueuedDelivery', 'ApiKey', 'Member']) expect(made).toContain(`    ${name}: {`)
    // A map's values keep their type (TypeBox's Record), not an empty object.
    expect(made).toMatch(/byState: Record<string, number>/)
  })
})
