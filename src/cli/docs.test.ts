import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { commandTable } from './docs.ts'

test('the README holds the command table of the CLI (regenerate: bun scripts/docs-tables.ts --write)', () => {
  const readme = readFileSync(join(import.meta.dir, '../../README.md'), 'utf8')
  expect(readme).toContain(commandTable())
})
