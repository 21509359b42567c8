// The README's configuration table, made from the settings table.
//   bun scripts/config-table.ts           prints it
//   bun scripts/config-table.ts --write   puts it into README.md in place of the old one
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { configurationTable } from '../src/config/docs.ts'

const table = configurationTable()
if (process.argv.includes('--write')) {
  const path = join(import.meta.dir, '..', 'README.md')
  const readme = readFileSync(path, 'utf8')
  const start = readme.indexOf('| Environment | Flag |')
  const end = readme.indexOf('\n\n', start)
  if (start < 0 || end < 0) throw new Error('README.md has no configuration table to replace')
  writeFileSync(path, readme.slice(0, start) + table + readme.slice(end))
} else {
  console.log(table)
}
