// Which file of src/ reads and which writes each table, found in the text of the queries: the
// ownership test (test/integration/table-ownership.test.ts) checks it against the declared owners
// of src/db/owners.ts, and the docs map of docs/architecture.md (scripts/table-owners.ts) shows the
// writers it finds. Only tables of the DB interface of src/db/schema.ts count, so a common table
// expression, json_each or a catalogue of the database is never taken for one.
//
// Reads: Kysely's selectFrom and its joins with the table named (a subquery's selectFrom too, in
// a `with` or an `exists`), FROM or JOIN in raw SQL, and src/db/event-cursors.ts's lastSettled
// of a table. Writes: Kysely's insertInto,
// updateTable, deleteFrom and replaceInto, src/db/bulk.ts's insertMany and updateMany, and raw
// INSERT INTO, UPDATE and DELETE FROM. Comments are left out, so prose naming a table is not a read.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const READS = [
  /\b(?:selectFrom|innerJoin|leftJoin|rightJoin|fullJoin|crossJoin|innerJoinLateral|leftJoinLateral)\(\s*(?:\w+ as )?['"]([a-z_]+)/g,
  /(?<!DELETE )\b(?:FROM|JOIN) "?([a-z_]+)"?(?![\w(])/g,
  // src/db/event-cursors.ts reads where the table it is given ends.
  /\blastSettled\(\s*\w+,\s*['"]([a-z_]+)/g,
]
const WRITES = [
  /\b(?:insertInto|updateTable|deleteFrom|replaceInto)\(\s*['"]([a-z_]+)['"]/g,
  /\b(?:insertMany|updateMany)\(\s*\w+,\s*['"]([a-z_]+)['"]/g,
  /\b(?:INSERT INTO|UPDATE|DELETE FROM) "?([a-z_]+)"?[\s(]/g,
]

/** One file's tables: those it reads and those it writes. */
export interface FileAccess {
  file: string
  reads: Set<string>
  writes: Set<string>
}

/** The TypeScript files of src/, without tests and without the console (a client of the API). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'console' ? [] : sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The text without its comments: block comments, and lines that are a comment or a comment's continuation. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*)/.test(line))
    .join('\n')
}

/** The tables of the DB interface in src/db/schema.ts, in its order. */
export function schemaTables(root: string): string[] {
  const schema = readFileSync(join(root, 'src', 'db', 'schema.ts'), 'utf8')
  const body = /export interface DB \{([^}]*)\}/.exec(schema)?.[1]
  if (!body) throw new Error('src/db/schema.ts has no DB interface')
  return [...body.matchAll(/^\s*([a-z_]+):/gm)].map((match) => match[1]!)
}

function tablesMatching(text: string, patterns: RegExp[], tables: Set<string>): Set<string> {
  const found = new Set<string>()
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) if (tables.has(match[1]!)) found.add(match[1]!)
  return found
}

/** Each file of `root`/src that reads or writes a table of the schema, by its path from `root`. */
export function tableAccess(root: string): FileAccess[] {
  const tables = new Set(schemaTables(root))
  return sources(join(root, 'src'))
    .map((path) => {
      const text = code(readFileSync(path, 'utf8'))
      return { file: relative(root, path), reads: tablesMatching(text, READS, tables), writes: tablesMatching(text, WRITES, tables) }
    })
    .filter((access) => access.reads.size > 0 || access.writes.size > 0)
    .sort((a, b) => a.file.localeCompare(b.file))
}
