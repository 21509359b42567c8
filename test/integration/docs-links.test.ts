import { describe, expect, test } from 'bun:test'
import { existsSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { ownerTable } from '../../scripts/table-owners.ts'
import { anchorsOf, markdownPages, namedPaths, proseLines, readPage, relativeLinks, slug } from '../helpers/markdown.ts'

/*
 * The documentation holds together: every relative link between README.md and the pages of docs/
 * reaches a file, and its #anchor a heading there (GitHub's anchors); every src/ and test/ path a
 * page names exists; the README stays short and leads to every page; the generated owner map is
 * current. Links and paths are checked as GitHub shows the repository, from the checkout's root.
 */

const ROOT = join(import.meta.dir, '..', '..')
const PAGES = markdownPages(ROOT)
/** Paths made at run time and kept out of git (test/browser/artifacts/): named by the pages, never present in a checkout. */
const IGNORED = new Set(readPage(ROOT, '.gitignore').split('\n').map((line) => line.trim().replace(/\/$/, '')))

/** A link's target, from `page`, as a path from the root (a bare #anchor is the page itself) and its anchor. */
function resolve(page: string, target: string): { path: string; anchor: string | undefined } {
  const [file, anchor] = target.split('#', 2) as [string, string | undefined]
  const path = file === '' ? page : normalize(join(dirname(page), decodeURIComponent(file))).replace(/\/$/, '')
  return { path, anchor }
}

/** What is wrong with a link, or undefined when it holds. */
function brokenLink(page: string, target: string): string | undefined {
  const { path, anchor } = resolve(page, target)
  if (path.startsWith('..')) return `${target} leaves the repository`
  if (!existsSync(join(ROOT, path))) return `${target}: ${path} does not exist`
  if (anchor === undefined) return undefined
  if (!path.endsWith('.md') || statSync(join(ROOT, path)).isDirectory()) return `${target}: an anchor on ${path}, which is not a page`
  return anchorsOf(readPage(ROOT, path)).has(anchor) ? undefined : `${target}: ${path} has no heading #${anchor}`
}

describe('the documentation', () => {
  test('the pages are README.md and the pages of docs/, architecture and decision records among them', () => {
    expect(PAGES).toContain('README.md')
    expect(PAGES).toContain('docs/architecture.md')
    expect(PAGES).toContain('docs/decisions/0008-migrator.md')
  })

  test('every page opens with its one title (a level-1 heading), the sections under it', () => {
    const wrong = PAGES.filter((page) => {
      const titles = proseLines(readPage(ROOT, page)).filter(({ line }) => /^# /.test(line))
      return titles.length !== 1 || titles[0]!.number !== 1
    })
    expect(wrong).toEqual([])
  })

  test('every relative link reaches a file, and its anchor a heading of that page', () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(readPage(ROOT, page)).flatMap(({ target, number }) => {
        const problem = brokenLink(page, target)
        return problem ? [`${page}:${number}: ${problem}`] : []
      }),
    )
    expect(broken).toEqual([])
  })

  test('every src/ and test/ path a page names exists (but in the architecture\'s "Not yet" list, or ignored by git)', () => {
    const missing = PAGES.flatMap((page) =>
      namedPaths(readPage(ROOT, page), ['Not yet'])
        .filter(({ path }) => !existsSync(join(ROOT, path)) && !IGNORED.has(path.replace(/\/$/, '')))
        .map(({ path, number }) => `${page}:${number}: ${path}`),
    )
    expect(missing).toEqual([])
  })

  test('the README is at most 300 lines and every page of docs/ is reached by links from it', () => {
    expect(readPage(ROOT, 'README.md').split('\n').length).toBeLessThanOrEqual(300)
    const reached = new Set(['README.md'])
    const waiting = ['README.md']
    while (waiting.length > 0) {
      const page = waiting.pop()!
      for (const { target } of relativeLinks(readPage(ROOT, page))) {
        const { path } = resolve(page, target)
        const pages = path.endsWith('.md') ? [path] : PAGES.filter((p) => dirname(p) === path)
        for (const next of pages.filter((p) => PAGES.includes(p) && !reached.has(p))) {
          reached.add(next)
          waiting.push(next)
        }
      }
    }
    expect(PAGES.filter((page) => !reached.has(page))).toEqual([])
  })

  test("docs/architecture.md holds the table-to-owner map of today's code (regenerate: bun scripts/docs-tables.ts --write)", () => {
    expect(readPage(ROOT, 'docs/architecture.md')).toContain(ownerTable(ROOT))
  })
})

describe("GitHub's anchors", () => {
  test.each([
    ['Sending', 'sending'],
    ['Reputation self-checks and `mailstead doctor`', 'reputation-self-checks-and-mailstead-doctor'],
    ['Reports (bounces and complaints)', 'reports-bounces-and-complaints'],
    ["Conformance with useSend's and Plunk's documents", 'conformance-with-usesends-and-plunks-documents'],
    ['Inbound SMTP: bounces, complaints and the relay', 'inbound-smtp-bounces-complaints-and-the-relay'],
    ['Roles: splitting the work between processes', 'roles-splitting-the-work-between-processes'],
    ['A -- B', 'a----b'],
  ])('%p -> #%s', (heading, anchor) => {
    expect(slug(heading)).toBe(anchor)
  })

  test('a repeated heading gets -1, and a # comment in a code block is no heading', () => {
    const page = '# Notes\n\n## Example\n\n```sh\n# Example\n```\n\n## Example\n'
    expect([...anchorsOf(page)]).toEqual(['notes', 'example', 'example-1'])
  })
})
