import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { commandTable } from './cli-docs.ts'

test('docs/cli.md holds the command table of the CLI (regenerate: bun scripts/docs-tables.ts --write)', () => {
  const page = readFileSync(join(import.meta.dir, '../../docs/cli.md'), 'utf8')
  expect(page).toContain(commandTable())
})
