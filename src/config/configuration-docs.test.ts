import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { configurationTable } from './configuration-docs.ts'

test('docs/configuration.md holds the configuration table of the settings (regenerate: bun scripts/docs-tables.ts --write)', () => {
  const page = readFileSync(join(import.meta.dir, '../../docs/configuration.md'), 'utf8')
  expect(page).toContain(configurationTable())
})
