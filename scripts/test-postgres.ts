// The PostgreSQL pass of the suite (npm run test:postgres, the second half of .ci/run): the test
// files tagged `// @database` on their first line, run with MAILSTEAD_TEST_DATABASE=postgres.
// Those are the files where the database is the point (queries, claims, migrations, transactions,
// clusters, paging, and the entities' flows end to end); a file whose test app only stands behind
// a protocol or a page says `// @database-incidental: why` instead and runs on SQLite alone.
// test/integration/postgres-tags.test.ts fails when a file that makes a database through the test
// helpers carries neither, so no file is left out by accident. docs/operations/postgresql.md says
// the rule.
//   bun scripts/test-postgres.ts [bun test options]   runs the pass
//   bun scripts/test-postgres.ts --list               prints the tagged files
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

/** The test helpers that make a database (a test app, a world, a cluster, a PostgreSQL database, an opened data place). */
export const DATABASE_HELPERS = [
  'test/helpers/app.ts',
  'test/helpers/postgres.ts',
  'test/helpers/direct-db.ts',
  'test/helpers/sqlite-template.ts',
  'test/helpers/child-world.ts',
  'test/helpers/cluster.ts',
]

export type Tag = 'database' | 'incidental'

/** The first-line marker of a test file, if it has one. */
export function tagOf(text: string): Tag | undefined {
  const first = text.slice(0, text.indexOf('\n') >>> 0)
  if (/^\/\/ @database\s*$/.test(first)) return 'database'
  if (/^\/\/ @database-incidental: \S/.test(first)) return 'incidental'
  return undefined
}

/** Every test file of the checkout at `root`, by relative path, sorted. */
export function testFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(path)
      return entry.name.endsWith('.test.ts') ? [path] : []
    })
  return ['src', 'test', 'scripts', 'migrations'].filter((dir) => existsSync(join(root, dir))).flatMap(walk).sort()
}

/** The relative files a module imports for their values (type-only imports make nothing), as paths from the root. */
function importsOf(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)(\s+type)?\s[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm)].filter((m) => !m[1]).map((m) => m[2]!),
    ...[...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
  ]
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(root, normalize(join(root, dirname(file), s))))
}

/** Whether a test file makes a database through the test helpers, directly or through another helper. */
export function makesDatabase(root: string, file: string): boolean {
  const seen = new Set<string>()
  const waiting = [file]
  while (waiting.length > 0) {
    const next = waiting.pop()!
    for (const imported of importsOf(root, next)) {
      if (DATABASE_HELPERS.includes(imported)) return true
      if (imported.startsWith('test/') && !seen.has(imported) && existsSync(join(root, imported))) {
        seen.add(imported)
        waiting.push(imported)
      }
    }
  }
  return false
}

/** The test files tagged `// @database`. */
export const taggedFiles = (root: string) => testFiles(root).filter((file) => tagOf(readFileSync(join(root, file), 'utf8')) === 'database')

if (import.meta.main) {
  const root = join(import.meta.dir, '..')
  const files = taggedFiles(root)
  if (process.argv.includes('--list')) {
    console.log(files.join('\n'))
  } else {
    // "./" makes each a path: bun test takes a bare argument as a filter on file names.
    // Three files at once, as npm test runs them: most of a test's time is spent waiting on timers and peers.
    const run = Bun.spawnSync([process.execPath, 'test', '--timeout', '30000', '--parallel=3', ...process.argv.slice(2), ...files.map((file) => `./${file}`)], {
      cwd: root,
      env: { ...process.env, MAILSTEAD_TEST_DATABASE: 'postgres' },
      stdin: 'inherit',
      stdout: 'inherit',
      stderr: 'inherit',
    })
    process.exit(run.exitCode ?? 1)
  }
}
