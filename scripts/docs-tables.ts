// The README's tables that are made from the code: the configuration (from the settings table)
// and the CLI reference (from the command table).
//   bun scripts/docs-tables.ts           prints them
//   bun scripts/docs-tables.ts --write   puts them into README.md in place of the old ones
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { commandTable } from '../src/cli/docs.ts'
import { configurationTable } from '../src/config/docs.ts'

/** Each table, by the header line that starts it. */
const TABLES = [
  { header: '| Environment | Flag |', table: configurationTable() },
  { header: '| Command | What it does |', table: commandTable() },
]

if (process.argv.includes('--write')) {
  const path = join(import.meta.dir, '..', 'README.md')
  let readme = readFileSync(path, 'utf8')
  for (const { header, table } of TABLES) {
    const start = readme.indexOf(header)
    const end = readme.indexOf('\n\n', start)
    if (start < 0 || end < 0) throw new Error(`README.md has no table starting "${header}" to replace`)
    readme = readme.slice(0, start) + table + readme.slice(end)
  }
  writeFileSync(path, readme)
} else {
  for (const { table } of TABLES) console.log(`${table}\n`)
}
