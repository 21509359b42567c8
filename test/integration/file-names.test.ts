import { describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { basename, join, relative } from 'node:path'

/*
 * Names say what they hold: a file's name alone tells what is in it, so no two files of the server
 * share one for different things (a search for `schema.ts` should not have to ask which). Only an
 * entity's `index.ts` is left out: it is its public surface, named by its folder. The transports'
 * per-resource files say their role in their name: `queue.routes.ts` (HTTP), `queue.command.ts`
 * (CLI), `queue.api.ts` (the console's calls) and `queue-view.ts` (what the console's page decides).
 */

const ROOT = join(import.meta.dir, '..', '..')

/** Every TypeScript file under `dir`, as a path from the root. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sources(path)
    return /\.tsx?$/.test(entry.name) ? [relative(ROOT, join(ROOT, path))] : []
  })
}

/** The file names that more than one of `paths` carry, each with the paths that carry it. */
function sharedNames(paths: string[]): Record<string, string[]> {
  const byName = new Map<string, string[]>()
  for (const path of paths) byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path])
  return Object.fromEntries([...byName].filter(([, all]) => all.length > 1))
}

describe('file names', () => {
  test('no two files under src/ share a name (but index.ts)', () => {
    const checked = sources('src').filter((path) => basename(path) !== 'index.ts')
    expect(checked.length).toBeGreaterThan(100)
    expect(sharedNames(checked)).toEqual({})
  })

  test('the check finds a shared name', () => {
    expect(sharedNames(['src/a/schema.ts', 'src/b/schema.ts', 'src/c/other.ts'])).toEqual({ 'schema.ts': ['src/a/schema.ts', 'src/b/schema.ts'] })
  })
})
