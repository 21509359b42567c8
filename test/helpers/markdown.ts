import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { markdownPages } from '../../scripts/docs-sources.ts'
import { anchorCounter, slug } from '../../src/http/docs/anchors.ts'

export { markdownPages, slug }

/*
 * What the documentation tests read of Markdown: headings and their anchors, links and the paths
 * named in inline code. Fenced code blocks are skipped: a `# comment` in a shell example is not a
 * heading, and a link inside code is not followed.
 */

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

/** Every anchor of the page, in order; a repeated one gets -1, -2, ... as on GitHub. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  const anchor = anchorCounter()
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6} (.+?)\s*#*\s*$/.exec(line)
    if (heading) anchors.add(anchor(heading[1]!))
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
