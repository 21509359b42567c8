import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/**
 * DESIGN.md: everything that differs between SQLite and PostgreSQL lives in src/db. This reads
 * src/core for the words of either dialect's own SQL (and for branching on the dialect: core may
 * pass the dialect to src/db's functions, never choose SQL by it) and names
 * each file and line that has one.
 */
const CORE = join(import.meta.dir, '../../src/core')

const DIALECT_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\bjson_(extract|each|type|group_array|group_object|array|object|patch|set|insert|remove|valid|tree)\s*\(/i, "SQLite's JSON functions"],
  [/\bjsonb?_(patch|each|extract|to_recordset|build_object|build_array|agg|typeof|array_elements|set)\s*\(/i, 'JSON functions of one dialect'],
  [/\bjson\(\s*[\w."]+\s*\)/i, "SQLite's json()"],
  [/\bPRAGMA\b/, 'a pragma'],
  [/\blikelihood\s*\(/i, "SQLite's planner hint"],
  [/\b(instr|iif|strftime|julianday|unixepoch|printf|typeof)\s*\(/i, "SQLite's functions"],
  [/\bINSERT\s+OR\s+(IGNORE|REPLACE)\b/i, "SQLite's INSERT OR"],
  [/\browid\b/i, "SQLite's rowid"],
  [/\b(ILIKE|GREATEST|LEAST)\b/, "PostgreSQL's"],
  [/\bFOR\s+UPDATE\b|\bSKIP\s+LOCKED\b/i, 'a locking clause'],
  [/\w::(jsonb?|text|bigint|int|integer|numeric)\b/, "PostgreSQL's casts"],
  [/\s->>?\s*'/, 'JSON operators'],
  [/[!=]==?\s*['"](postgres|sqlite)['"]|['"](postgres|sqlite)['"]\s*[!=]==?/, 'a branch on the dialect (src/db functions take the dialect instead)'],
]

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

describe('src/core holds no dialect-specific SQL', () => {
  test('no file in src/core uses one dialect\'s SQL or branches on the dialect', () => {
    const found: string[] = []
    for (const file of sources(CORE)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return
          for (const [pattern, what] of DIALECT_WORDS) if (pattern.test(line)) found.push(`${relative(CORE, file)}:${i + 1}: ${what}: ${line.trim()}`)
        })
    }
    expect(found).toEqual([])
  })
})
