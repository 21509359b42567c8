// The table-to-owner map of docs/architecture.md: for each table of src/db/schema.ts, its owner
// as declared in src/db/owners.ts, and the modules whose code writes it as found by
// scripts/table-access.ts, so that the page shows both what is meant and what IS. A module is an
// entity folder of src/core (src/core/contacts/) or else the file itself; a table no code writes
// (its migration seeds it) is listed as such. The whole-database code of src/db/owners.ts is
// listed under the map, not per table.
import { TABLE_OWNERS, WHOLE_DATABASE_CODE } from '../src/db/owners.ts'
import { schemaTables, tableAccess } from './table-access.ts'

/** src/core/<entity>/ for files of an entity, else the file's own path. */
function moduleOf(path: string): string {
  const core = /^src\/core\/([^/]+)\//.exec(path)
  return core ? `src/core/${core[1]}/` : path
}

/** Table -> the modules that write it, from the source under `root`/src; every table of the schema is a key. */
export function tableWriters(root: string): Map<string, Set<string>> {
  const writers = new Map(schemaTables(root).map((table) => [table, new Set<string>()]))
  for (const { file, writes } of tableAccess(root)) {
    if (WHOLE_DATABASE_CODE.includes(file)) continue
    for (const table of writes) writers.get(table)?.add(moduleOf(file))
  }
  return writers
}

/** The Markdown table: one row per table, its declared owner and its writers in order. */
export function ownerTable(root: string): string {
  const rows = [...tableWriters(root)].sort(([a], [b]) => a.localeCompare(b))
  const ownerOf = (table: string) => TABLE_OWNERS[table as keyof typeof TABLE_OWNERS] ?? 'none declared'
  const writersOf = (modules: Set<string>) =>
    modules.size === 0 ? 'no code: its migration seeds it' : [...modules].sort().map((m) => `\`${m}\``).join(', ')
  const lines = rows.map(([table, modules]) => `| \`${table}\` | \`${ownerOf(table)}\` | ${writersOf(modules)} |`)
  return ['| Table | Owner | Written by |', '|---|---|---|', ...lines].join('\n')
}
