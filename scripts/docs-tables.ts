// The documentation's tables that are made from the code: the configuration (from the settings
// table), the CLI reference (from the command table) and the table-to-owner map (from the
// queries in src/).
//   bun scripts/docs-tables.ts           prints them
//   bun scripts/docs-tables.ts --write   puts them into their pages in docs/ in place of the old ones
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { commandTable } from '../src/cli/cli-docs.ts'
import { configurationTable } from '../src/config/configuration-docs.ts'
import { ownerTable } from './table-owners.ts'

const ROOT = join(import.meta.dir, '..')

/** Each table, by its page and the header line that starts it there. */
const TABLES = [
  { page: 'docs/configuration.md', header: '| Environment | Flag |', table: configurationTable() },
  { page: 'docs/cli.md', header: '| Command | What it does |', table: commandTable() },
  { page: 'docs/architecture.md', header: '| Table | Owner | Written by |', table: ownerTable(ROOT) },
]

if (process.argv.includes('--write')) {
  for (const { page, header, table } of TABLES) {
    const path = join(ROOT, page)
    const text = readFileSync(path, 'utf8')
    const start = text.indexOf(header)
    // The table ends at the first blank line, or with the page.
    const blank = text.indexOf('\n\n', start)
    const end = blank < 0 ? text.trimEnd().length : blank
    if (start < 0) throw new Error(`${page} has no table starting "${header}" to replace`)
    writeFileSync(path, text.slice(0, start) + table + text.slice(end))
  }
} else {
  for (const { table } of TABLES) console.log(`${table}\n`)
}
