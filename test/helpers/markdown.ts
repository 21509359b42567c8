import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/*
 * What the documentation tests read of Markdown: headings and their anchors, links and the paths
 * named in inline code. Fenced code blocks are skipped: a `# comment` in a shell example is not a
 * heading, and a link inside code is not followed.
 */

/** The Markdown pages of the checkout at `root`: README.md and every page under docs/, by relative path. */
export function markdownPages(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) return walk(path)
      return entry.name.endsWith('.md') ? [path] : []
    })
  return ['README.md', ...walk('docs')].map((path) => relative(root, join(root, path)))
}

/** The page's lines outside fenced code blocks, each with its line number (1-based). */
export function proseLines(text: string): Array<{ line: string; number: number }> {
  const out: Array<{ line: string; number: number }> = []
  let fenced = false
  text.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced
    else if (!fenced) out.push({ line, number: index + 1 })
  })
  return out
}

/**
 * The anchor GitHub gives a heading (github-slugger): the text as rendered (links by their text,
 * emphasis and code marks dropped), lower-cased, every character but letters, digits, `_`, `-` and
 * spaces removed, each space made a hyphen.
 */
export function slug(heading: string): string {
  const rendered = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor of the page, in order; a repeated one gets -1, -2, ... as on GitHub. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6} (.+?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = slug(heading[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** The lines' text with inline code taken out, so that a link shown as code is not a link. */
const withoutCode = (line: string) => line.replace(/`[^`]*`/g, '')

/** Every relative link of the page (web and mail addresses left out), with its line number. */
export function relativeLinks(text: string): Array<{ target: string; number: number }> {
  const links: Array<{ target: string; number: number }> = []
  for (const { line, number } of proseLines(text)) {
    for (const match of withoutCode(line).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, number })
    }
  }
  return links
}

/**
 * The src/ and test/ paths the page names in inline code, except in the sections whose heading is
 * in `skipped` (a "Not yet" list names paths that do not exist on purpose). Paths written as
 * patterns (`src/core/<entity>/`, `*`) are left out; a `:line` suffix is dropped.
 */
export function namedPaths(text: string, skipped: readonly string[] = []): Array<{ path: string; number: number }> {
  const paths: Array<{ path: string; number: number }> = []
  let skipping = false
  for (const { line, number } of proseLines(text)) {
    const heading = /^(#{1,6}) (.+)$/.exec(line)
    if (heading) skipping = skipped.includes(heading[2]!.trim())
    if (skipping) continue
    for (const match of line.matchAll(/`((?:src|test)\/[^`\s]*)`/g)) {
      const path = match[1]!.replace(/:\d+$/, '')
      if (!/[<>*{}]/.test(path)) paths.push({ path, number })
    }
  }
  return paths
}

export const readPage = (root: string, page: string) => readFileSync(join(root, page), 'utf8')
