// The table-to-owner map of docs/architecture.md, made from the queries in src/ so it cannot
// drift: for each table, the modules whose code writes it (Kysely's insertInto, updateTable,
// deleteFrom and replaceInto with the table named, src/db/bulk.ts's insertMany and updateMany, and
// raw INSERT INTO, UPDATE, DELETE FROM). The tables are those of the DB interface of
// src/db/schema.ts. A module is an entity folder of src/core (src/core/contacts/) or else the file
// itself. It says what IS: a table with more than one writer is listed with all of them, and a
// table no code writes (its migration seeds it) is listed as such.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const KYSELY = /\b(?:insertInto|updateTable|deleteFrom|replaceInto)\(\s*['"]([a-z_]+)['"]/g
const BULK = /\b(?:insertMany|updateMany)\(\s*\w+,\s*['"]([a-z_]+)['"]/g
const RAW = /\b(?:INSERT INTO|UPDATE|DELETE FROM) "?([a-z_]+)"?[\s(]/g
/** Code that writes tables named at run time rather than in its text: listed under the map. */
export const GENERIC_WRITERS = ['src/db/claims.ts', 'src/db/copy-to-postgres.ts']

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'console' ? [] : sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** src/core/<entity>/ for files of an entity, else the file's own path. */
function moduleOf(path: string): string {
  const core = /^src\/core\/([^/]+)\//.exec(path)
  return core ? `src/core/${core[1]}/` : path
}

/** The tables of the DB interface in src/db/schema.ts, in its order. */
export function schemaTables(root: string): string[] {
  const schema = readFileSync(join(root, 'src', 'db', 'schema.ts'), 'utf8')
  const body = /export interface DB \{([^}]*)\}/.exec(schema)?.[1]
  if (!body) throw new Error('src/db/schema.ts has no DB interface')
  return [...body.matchAll(/^\s*([a-z_]+):/gm)].map((match) => match[1]!)
}

/** Table -> the modules that write it, from the source under `root`/src; every table of the schema is a key. */
export function tableWriters(root: string): Map<string, Set<string>> {
  const writers = new Map(schemaTables(root).map((table) => [table, new Set<string>()]))
  for (const file of sources(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8')
    const module = moduleOf(relative(root, file))
    for (const pattern of [KYSELY, BULK, RAW]) {
      for (const match of text.matchAll(pattern)) writers.get(match[1]!)?.add(module)
    }
  }
  return writers
}

/** The Markdown table: one row per table, its writers in order. */
export function ownerTable(root: string): string {
  const rows = [...tableWriters(root)].sort(([a], [b]) => a.localeCompare(b))
  const writersOf = (modules: Set<string>) =>
    modules.size === 0 ? 'no code: its migration seeds it' : [...modules].sort().map((m) => `\`${m}\``).join(', ')
  const lines = rows.map(([table, modules]) => `| \`${table}\` | ${writersOf(modules)} |`)
  return ['| Table | Written by |', '|---|---|', ...lines].join('\n')
}
